/** What TLS says when the server's certificate is not signed by a CA the client trusts. */
const NOT_SIGNED_BY_TRUSTED_CA = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
]);

/** Whether a failed connection (or an error caused by one) was TLS refusing a certificate that another CA signed. */
export function signedByAnotherCa(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (NOT_SIGNED_BY_TRUSTED_CA.has(String((e as NodeJS.ErrnoException).code))) return true;
  }
  return false;
}
