import type { StatusCause } from '../../../shared/errors.js';
import type { Endpoints, Service } from '../../../shared/service-types.js';
import { invalidValue, required } from '../admission/admission.js';
import type { ResourceDef } from './registry.js';
import { prepareService, serviceReservation } from './service-allocation.js';
import { endpointsPrinter, servicePrinter } from './service-printers.js';
import { validateService } from './service-validation.js';

/** core/v1 Services (with a status subresource) and Endpoints, as kube-apiserver serves them. */

export const serviceResource: ResourceDef = {
  group: '', version: 'v1', resource: 'services', singular: 'service', kind: 'Service', namespaced: true,
  shortNames: ['svc'], categories: ['all'], subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
  printer: servicePrinter,
  strategy: {
    nameIsLabel: true,
    prepare: prepareService,
    reservation: serviceReservation,
    validate: validateService,
    fields: (obj) => ({ 'spec.clusterIP': (obj as Service).spec?.clusterIP ?? '', 'spec.type': (obj as Service).spec?.type ?? '' }),
  },
};

export const endpointsResource: ResourceDef = {
  group: '', version: 'v1', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints', namespaced: true,
  shortNames: ['ep'], categories: [], subresources: [], printer: endpointsPrinter,
  strategy: {
    defaultOnCreate(obj) {
      for (const subset of (obj as Endpoints).subsets ?? []) for (const port of subset.ports ?? []) port.protocol ??= 'TCP';
    },
    validate: (obj) => validateEndpoints(obj as Endpoints),
  },
};

function validateEndpoints(ep: Endpoints): StatusCause[] {
  if (ep.subsets === undefined) return [];
  if (!Array.isArray(ep.subsets)) return [invalidValue('subsets', ep.subsets, 'must be a list')];
  const causes: StatusCause[] = [];
  ep.subsets.forEach((subset, i) => {
    const at = `subsets[${i}]`;
    for (const kind of ['addresses', 'notReadyAddresses'] as const) {
      (subset[kind] ?? []).forEach((a, j) => {
        if (!a?.ip) causes.push(required(`${at}.${kind}[${j}].ip`));
      });
    }
    (subset.ports ?? []).forEach((p, j) => {
      if (!Number.isInteger(p?.port) || p.port < 1 || p.port > 65535) causes.push(invalidValue(`${at}.ports[${j}].port`, p?.port, 'must be between 1 and 65535, inclusive'));
    });
  });
  return causes;
}
