/**
 * Answers about a DER object (a certificate, most often), remembered by its bytes: a credential's
 * chain is the same for each of its signatures, and parsing it with X509Certificate per signature
 * was 6 % of the service's time for small PDFs; making its public key again per read-back 0.3 ms of
 * a PDF worker's time per small PDF (both measured on a 2-core machine). Bounded: a process sees a
 * handful of chains, and a validation a few dozen certificates. A computation that throws is not
 * remembered.
 */
export function memoByDer<T>(compute: (der: Uint8Array) => T, max = 256): (der: Uint8Array) => T {
  const known = new Map<string, T>();
  return (der) => {
    const key = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
    let value = known.get(key);
    if (value === undefined) {
      value = compute(der);
      if (known.size >= max) known.delete(known.keys().next().value!);
      known.set(key, value);
    }
    return value;
  };
}
