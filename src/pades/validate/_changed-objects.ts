/**
 * The objects an update after a signed revision wrote (ISO 32000-1 §7.5.6): added, written again
 * or freed, and those its cross-reference data points back into the signed bytes. Only these are
 * judged (_revision-diff.ts); an object the sections do not list is unchanged.
 */
import type { PdfReader, XrefEntry } from '../pdf';
import type { Change } from './_verdict';

/**
 * Changed objects examined after one revision. DocMDP-permitted updates (a signature, form
 * filling, annotations, the DSS) change a few objects each; past this many, the update is
 * a rewrite of the document and class 4 without looking further.
 */
export const MAX_CHANGED_OBJECTS = 10_000;

function sameEntry(a: XrefEntry | undefined, b: XrefEntry): boolean {
  if (!a || a.type !== b.type) return false;
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset && a.generation === b.generation;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNumber === b.streamNumber && a.index === b.index;
  return a.type === 'free';
}

/**
 * Object numbers the update after the revision may have changed: those listed by the sections it
 * added (§7.5.6: an update appends sections whose /Prev leads back to the revision's own); the
 * whole table when the chain does not continue the revision's, as a lenient reader must.
 */
function candidates(cur: PdfReader, old: PdfReader): Iterable<number> {
  const added = cur.xref.sections.length - old.xref.sections.length;
  const continues = added > 0 && old.xref.sections.every((s, i) => s.offset === cur.xref.sections[added + i]!.offset);
  if (!continues) {
    cur.chargeEntries(cur.xref.entries.size);
    return cur.xref.entries.keys();
  }
  const nums = new Set<number>();
  for (const section of cur.xref.sections.slice(0, added)) {
    cur.chargeEntries(section.entries.size);
    for (const num of section.entries.keys()) nums.add(num);
  }
  return nums;
}

/**
 * An entry of the update that points at bytes of the signed revision: the object is whatever
 * was there, a copy the signature covered under another role (the "hide" shadow attack
 * redirects an object to an older, planted definition). Writers put what they write after the
 * revision; nothing a signature permits is done this way.
 */
function redirect(cur: PdfReader, old: PdfReader, revisionEnd: number, entry: XrefEntry): string | null {
  if (entry.type === 'offset' && entry.offset < revisionEnd) return `redirected by the cross-reference data to byte ${entry.offset}, inside the signed revision`;
  if (entry.type === 'compressed') {
    const stream = cur.xref.entries.get(entry.streamNumber);
    if (stream && sameEntry(old.xref.entries.get(entry.streamNumber), stream)) return `redirected by the cross-reference data into object stream ${entry.streamNumber} of the signed revision`;
  }
  return null;
}

/**
 * The changed objects of `cur` against the revision `old` ending at `revisionEnd`, by number;
 * null when there are more than MAX_CHANGED_OBJECTS.
 */
export function changedObjects(cur: PdfReader, old: PdfReader, revisionEnd: number): Map<number, Change> | null {
  const changes = new Map<number, Change>();
  for (const num of candidates(cur, old)) {
    const now = cur.xref.entries.get(num);
    const before = old.xref.entries.get(num);
    if (!now || sameEntry(before, now)) continue;
    const wasInUse = before !== undefined && before.type !== 'free';
    if (now.type === 'free' && !wasInUse) continue;
    if (changes.size === MAX_CHANGED_OBJECTS) return null;
    const kind = now.type === 'free' ? 'freed' : wasInUse ? 'modified' : 'new';
    changes.set(num, { num, kind, before: undefined, after: undefined, redirected: redirect(cur, old, revisionEnd, now) });
  }
  return changes;
}
