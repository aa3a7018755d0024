import { fillStampText } from '../platform/stamp-text';
import type { StampSpec } from '../domain/pades';
import { stampSpecOf, type CachedDesign } from '../store/catalog-types';
import type { PadesParams } from './kinds';

/** The signing date as it appears on stamps: unambiguous and locale-free. */
export function formatStampDate(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function resolveStamp(design: CachedDesign, values: Record<string, string | undefined>): StampSpec {
  const stamp = stampSpecOf(design.stamp);
  return { ...stamp, lines: stamp.lines.map((l) => ({ text: fillStampText(l.text, values), size: l.size })) };
}

/**
 * What prepare takes from a request besides its document and chain: its fields, and the design's
 * stamp with its placeholders filled (the request's fields and variables, the signing date). The
 * same at accept (a small document prepared with its check) and in the job.
 */
export function prepareFields(params: PadesParams, design: CachedDesign | null, signingTime: Date): { signingTime: Date; reason: string | null; location: string | null; signerName: string | null; stamp: StampSpec | null; certify: PadesParams['certify'] | null } {
  const stamp = design
    ? resolveStamp(design, {
        signer_name: params.signerName ?? undefined,
        reason: params.reason ?? undefined,
        location: params.location ?? undefined,
        ...params.variables,
        date: formatStampDate(signingTime),
      })
    : null;
  return { signingTime, reason: params.reason, location: params.location, signerName: params.signerName, stamp, certify: params.certify ?? null };
}
