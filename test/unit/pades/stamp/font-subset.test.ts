import fontkit from '@pdf-lib/fontkit';
import { describe, expect, it } from 'vitest';
import dejavu from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
import { encodeSubset, encodeWithoutTimers, SubsetCache, SubsetWriter } from '../../../../src/pades/stamp/_font-subset';

type Subset = ReturnType<ReturnType<typeof fontkit.create>['createSubset']>;

/** A subset of DejaVu Sans with the glyphs of `text`, in the order of first use (as pdf-lib makes it). */
function subsetOf(text: string): Subset {
  const font = fontkit.create(dejavu);
  const subset = font.createSubset();
  for (const glyph of font.glyphsForString(text)) subset.includeGlyph(glyph);
  return subset;
}

type Events = { on(event: string, listener: (value?: unknown) => void): Events };

/** What fontkit's own stream gives, chunk by chunk, after its timers. */
function streamed(subset: Subset): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    (subset.encodeStream() as unknown as Events)
      .on('data', (bytes) => parts.push(bytes as Uint8Array))
      .on('end', () => resolve(Buffer.concat(parts)))
      .on('error', reject);
  });
}

describe('a font subset encoded without fontkit\'s timers (issue 18)', () => {
  it('gives the bytes fontkit\'s stream gives, for Latin, Greek and Cyrillic text', async () => {
    for (const text of ['Digitally signed by A. Signer', 'Date: 2026-11-25 16:19 UTC', 'Ελληνικά και кириллица, äöü ß', '']) {
      const ours = encodeSubset(subsetOf(text) as never);
      const theirs = await streamed(subsetOf(text));
      expect(ours.length).toBeGreaterThan(1000);
      expect(Buffer.from(ours).equals(Buffer.from(theirs))).toBe(true);
    }
  });

  it('answers pdf-lib\'s listeners on a microtask, not after timers', async () => {
    const subset = encodeWithoutTimers(subsetOf('AB'));
    const events: string[] = [];
    let bytes: Uint8Array | undefined;
    const done = new Promise<void>((resolve) => {
      (subset.encodeStream() as unknown as Events)
        .on('data', (b) => {
          events.push('data');
          bytes = b as Uint8Array;
        })
        .on('end', () => {
          events.push('end');
          resolve();
        });
    });
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    await done;
    expect(timerRan).toBe(false);
    expect(events).toEqual(['data', 'end']);
    expect(Buffer.from(bytes!).equals(Buffer.from(encodeSubset(subsetOf('AB') as never)))).toBe(true);
  });

  it('an encoder error reaches the error listener', async () => {
    const subset = encodeWithoutTimers({ encodeStream: () => undefined, encode: () => { throw new Error('broken glyph'); } });
    const error = await new Promise((resolve) => (subset.encodeStream() as unknown as Events).on('error', resolve));
    expect(error).toMatchObject({ message: 'broken glyph' });
  });

  it('a cached subset is the file its glyphs make, handed out as a copy; the cache stays bounded', () => {
    const cache = new SubsetCache(2);
    const texts = ['Date: 2026-11-25 16:19 UTC', 'Date: 2026-11-25 16:20 UTC', 'Ελληνικά'];
    for (const text of [...texts, ...texts]) {
      const first = cache.encode(subsetOf(text) as never);
      expect(Buffer.from(first).equals(Buffer.from(encodeSubset(subsetOf(text) as never)))).toBe(true);
      first.fill(0);
      expect(Buffer.from(cache.encode(subsetOf(text) as never)).equals(Buffer.from(encodeSubset(subsetOf(text) as never)))).toBe(true);
    }
    expect((cache as unknown as { files: Map<string, unknown> }).files.size).toBe(2);
  });

  it('grows past its first buffer and writes numbers as restructure does', () => {
    const writer = new SubsetWriter();
    writer.fill(7, 70_000);
    writer.writeUInt16BE(0xabcd);
    writer.writeInt16BE(-2);
    writer.writeUInt32BE(0x01020304);
    writer.writeInt24BE(-1);
    writer.writeString('OS/2');
    writer.writeString('A', 'utf16be');
    const bytes = writer.result();
    expect(writer.pos).toBe(70_000 + 2 + 2 + 4 + 3 + 4 + 2);
    expect([...bytes.subarray(69_999)]).toEqual([7, 0xab, 0xcd, 0xff, 0xfe, 1, 2, 3, 4, 0xff, 0xff, 0xff, 0x4f, 0x53, 0x2f, 0x32, 0, 0x41]);
  });
});
