import { fillStampText, listPlaceholders } from '../platform/stamp-text';
import type { StampSpec } from '../domain/pades';
import { stampSpecOf, type CachedDesign } from '../store/catalog-types';
import type { PadesParams } from './kinds';

/** The signing date as it appears on stamps: unambiguous and locale-free. */
export function formatStampDate(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A design's stamp with its placeholders filled. A line whose placeholders all come out empty
 * ("Digitally signed by " with no signer_name) would read as blank: it carries `unfilled`, and
 * the layout leaves it out and says so in `warnings`. A line with some of its values, or none to
 * fill, is drawn as filled.
 */
export function resolveStamp(design: CachedDesign, values: Record<string, string | undefined>): StampSpec {
  const stamp = stampSpecOf(design.stamp);
  const filled = (name: string) => Object.hasOwn(values, name) && (values[name] ?? '').trim() !== '';
  return {
    ...stamp,
    lines: stamp.lines.map((l) => {
      const names = listPlaceholders(l.text);
      const line = { text: fillStampText(l.text, values), size: l.size };
      return names.length > 0 && !names.some(filled) ? { ...line, unfilled: names } : line;
    }),
  };
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
