import { describe, expect, it } from 'vitest';
import { defaultDesigns } from '../../../src/platform/default-designs';
import { prepareFields, resolveStamp } from '../../../src/signing/stamp-values';
import type { CachedDesign } from '../../../src/store/catalog-types';

const design: CachedDesign = {
  design_key: 'd1',
  name: 'Test',
  variables: [{ name: 'reference', required: false, description: '' }],
  stamp: {
    page: 'last',
    x: 36,
    y: 36,
    width: 220,
    height: 70,
    lines: [
      { text: 'Digitally signed by {{signer_name}}', size: 10 },
      { text: 'Date: {{date}}', size: 8 },
      { text: 'Location: {{ location }}', size: 8 },
      { text: '{{reference}} / {{reason}}', size: 8 },
      { text: 'Approved', size: 8 },
    ],
  },
};

describe('resolveStamp: a line that would read as blank', () => {
  it('marks a line whose every placeholder is empty or missing, and only those', () => {
    const stamp = resolveStamp(design, { signer_name: 'Ana', location: '  ', reason: undefined, date: '2026-11-28 10:00 UTC' });
    expect(stamp.lines).toEqual([
      { text: 'Digitally signed by Ana', size: 10 },
      { text: 'Date: 2026-11-28 10:00 UTC', size: 8 },
      { text: 'Location:   ', size: 8, unfilled: ['location'] },
      { text: ' / ', size: 8, unfilled: ['reference', 'reason'] },
      // No placeholder: the design's own words are drawn as written.
      { text: 'Approved', size: 8 },
    ]);
  });

  it('keeps a line when any one of its placeholders has a value', () => {
    const stamp = resolveStamp(design, { reference: 'INV-42', date: 'd' });
    expect(stamp.lines[3]).toEqual({ text: 'INV-42 / ', size: 8 });
  });

  it('a request with every field of the default design leaves no line unfilled; one with none leaves all but the date', () => {
    const standard = defaultDesigns({ standard: 'std', approval: 'ap' })[0]!;
    const params = { signerName: 'Ana García', reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } };
    const full = prepareFields(params as never, standard, new Date('2026-11-28T10:00:00Z')).stamp!;
    expect(full.lines.filter((l) => l.unfilled)).toEqual([]);
    const bare = prepareFields({ signerName: null, reason: null, location: null, variables: {} } as never, standard, new Date('2026-11-28T10:00:00Z')).stamp!;
    expect(bare.lines.filter((l) => !l.unfilled).map((l) => l.text)).toEqual(['Date: 2026-11-28 10:00 UTC']);
  });
});
