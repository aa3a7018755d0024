import { fillStampText } from '../platform/stamp-text';
import type { StampSpec } from '../domain/pades';
import { stampSpecOf, type CachedDesign } from '../store/catalog-types';

/** The signing date as it appears on stamps: unambiguous and locale-free. */
export function formatStampDate(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function resolveStamp(design: CachedDesign, values: Record<string, string | undefined>): StampSpec {
  const stamp = stampSpecOf(design.stamp);
  return { ...stamp, lines: stamp.lines.map((l) => ({ text: fillStampText(l.text, values), size: l.size })) };
}
