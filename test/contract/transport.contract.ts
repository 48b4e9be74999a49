import { afterEach, beforeEach, describe } from 'vitest';
import { aclCases } from './transport-acl.cases.js';
import { TransportHarness, type TransportFactory } from './transport-contract-kit.js';
import { linkCases } from './transport-link.cases.js';
import { sessionCases } from './transport-session.cases.js';

export type { ContractClient, TransportFactory, TransportUnderTest } from './transport-contract-kit.js';

/**
 * The Transport contract: every implementation, over its broker, must pass it. Time passes
 * only through the factory's pass/until (a FakeClock for the in-memory broker, the wall clock
 * for a real one), and no case depends on when exactly a keepalive notices a cut, only that
 * it does within two keepalives.
 */
export function transportContract(name: string, factory: TransportFactory): void {
  describe(`Transport contract: ${name}`, () => {
    let harness: TransportHarness;
    beforeEach(async () => {
      harness = await TransportHarness.open(factory);
    });
    afterEach(() => harness.close());

    describe('sessions', () => sessionCases(() => harness));
    describe('ACL', () => aclCases(() => harness));
    describe('links', () => linkCases(() => harness));
  });
}
