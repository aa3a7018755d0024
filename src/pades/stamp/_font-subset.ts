/**
 * A font subset's bytes without fontkit's stream. fontkit (@pdf-lib/fontkit, a browser build)
 * encodes a subset into a readable stream whose every step is scheduled by its bundled
 * `process.nextTick`, which is `setTimeout(fn, 0)`: at least 1 ms each in Node. pdf-lib waits for
 * that stream while embedding the stamp's font, so a small PDF's prepare took 6-7 ms of wall time
 * for 2 ms of work (measured on a 2-core machine). Here the subset writes into one buffer,
 * synchronously, through the same writer methods restructure's EncodeStream has (same bytes:
 * test/unit/pades/stamp/font-subset.test.ts compares them), and pdf-lib gets them on a microtask.
 */

/** What fontkit's subset classes (TTFSubset, CFFSubset) offer: `encode` writes into a stream. */
interface EncodableSubset {
  /** The font's glyph ids in the subset's order (0, the missing glyph, first). */
  glyphs: number[];
  encode(stream: SubsetWriter): void;
  encodeStream(): unknown;
}

/** restructure's EncodeStream as the subset encoders use it: appends only, `pos` counts bytes. */
export class SubsetWriter {
  pos = 0;
  private bytes = Buffer.alloc(64 * 1024);

  private ensure(length: number): void {
    if (this.pos + length <= this.bytes.length) return;
    const grown = Buffer.alloc(Math.max(this.bytes.length * 2, this.pos + length));
    this.bytes.copy(grown, 0, 0, this.pos);
    this.bytes = grown;
  }

  private put(size: number, write: (bytes: Buffer, offset: number) => unknown): number {
    this.ensure(size);
    write(this.bytes, this.pos);
    return (this.pos += size);
  }

  // restructure's number types (DecodeStream.TYPES), written as EncodeStream writes them.
  writeUInt8(v: number): number { return this.put(1, (b, o) => b.writeUInt8(v, o)); }
  writeInt8(v: number): number { return this.put(1, (b, o) => b.writeInt8(v, o)); }
  writeUInt16BE(v: number): number { return this.put(2, (b, o) => b.writeUInt16BE(v, o)); }
  writeUInt16LE(v: number): number { return this.put(2, (b, o) => b.writeUInt16LE(v, o)); }
  writeInt16BE(v: number): number { return this.put(2, (b, o) => b.writeInt16BE(v, o)); }
  writeInt16LE(v: number): number { return this.put(2, (b, o) => b.writeInt16LE(v, o)); }
  writeUInt32BE(v: number): number { return this.put(4, (b, o) => b.writeUInt32BE(v, o)); }
  writeUInt32LE(v: number): number { return this.put(4, (b, o) => b.writeUInt32LE(v, o)); }
  writeInt32BE(v: number): number { return this.put(4, (b, o) => b.writeInt32BE(v, o)); }
  writeInt32LE(v: number): number { return this.put(4, (b, o) => b.writeInt32LE(v, o)); }
  writeFloatBE(v: number): number { return this.put(4, (b, o) => b.writeFloatBE(v, o)); }
  writeFloatLE(v: number): number { return this.put(4, (b, o) => b.writeFloatLE(v, o)); }
  writeDoubleBE(v: number): number { return this.put(8, (b, o) => b.writeDoubleBE(v, o)); }
  writeDoubleLE(v: number): number { return this.put(8, (b, o) => b.writeDoubleLE(v, o)); }

  writeBuffer(buffer: Uint8Array): number {
    this.ensure(buffer.length);
    this.bytes.set(buffer, this.pos);
    return (this.pos += buffer.length);
  }

  /** As EncodeStream.writeString: utf16be is utf16le with each pair swapped. */
  writeString(text: string, encoding = 'ascii'): number {
    if (encoding === 'utf16be') {
      const swapped = Buffer.from(text, 'utf16le');
      for (let i = 0; i < swapped.length - 1; i += 2) {
        const byte = swapped[i]!;
        swapped[i] = swapped[i + 1]!;
        swapped[i + 1] = byte;
      }
      return this.writeBuffer(swapped);
    }
    if (encoding !== 'ascii' && encoding !== 'utf8' && encoding !== 'utf16le' && encoding !== 'ucs2') {
      throw new Error(`font subset: string encoding ${encoding} is not supported`);
    }
    return this.writeBuffer(Buffer.from(text, encoding));
  }

  writeUInt24BE(value: number): number {
    this.ensure(3);
    this.bytes[this.pos] = (value >>> 16) & 0xff;
    this.bytes[this.pos + 1] = (value >>> 8) & 0xff;
    this.bytes[this.pos + 2] = value & 0xff;
    return (this.pos += 3);
  }

  writeUInt24LE(value: number): number {
    this.ensure(3);
    this.bytes[this.pos] = value & 0xff;
    this.bytes[this.pos + 1] = (value >>> 8) & 0xff;
    this.bytes[this.pos + 2] = (value >>> 16) & 0xff;
    return (this.pos += 3);
  }

  writeInt24BE(value: number): number {
    return this.writeUInt24BE(value >= 0 ? value : value + 0xffffff + 1);
  }

  writeInt24LE(value: number): number {
    return this.writeUInt24LE(value >= 0 ? value : value + 0xffffff + 1);
  }

  fill(value: number, length: number): number {
    this.ensure(length);
    this.bytes.fill(value, this.pos, this.pos + length);
    return (this.pos += length);
  }

  /** The bytes written, in a buffer of their own. */
  result(): Uint8Array {
    return new Uint8Array(this.bytes.subarray(0, this.pos));
  }
}

/** The subset's font file, encoded now. */
export function encodeSubset(subset: EncodableSubset): Uint8Array {
  const writer = new SubsetWriter();
  subset.encode(writer);
  return writer.result();
}

/**
 * Font files of one font's recent subsets, by their glyph list: a subset's file depends on nothing
 * else (the glyphs are written in that order; composite glyphs' parts follow, decided by the
 * font). Stamps of one design drawn the same minute use the same glyphs, and encoding them took
 * about 1 ms of a small PDF's prepare (measured on a 2-core machine).
 */
export class SubsetCache {
  private readonly files = new Map<string, Uint8Array>();

  constructor(private readonly max = 16) {}

  encode(subset: EncodableSubset): Uint8Array {
    const key = subset.glyphs.join(',');
    let file = this.files.get(key);
    if (file) {
      this.files.delete(key); // most recent last
    } else {
      file = encodeSubset(subset);
      if (this.files.size >= this.max) this.files.delete(this.files.keys().next().value!);
    }
    this.files.set(key, file);
    // A copy: what pdf-lib is given is its own.
    return file.slice();
  }
}

type Listener = (value?: unknown) => void;

/**
 * Makes `subset.encodeStream()` answer with the bytes encoded synchronously (or kept in `cache`):
 * its listeners (pdf-lib's CustomFontSubsetEmbedder: 'data', 'end', 'error') hear them on a
 * microtask, once the caller has attached them, instead of after fontkit's chain of 1 ms timers.
 */
export function encodeWithoutTimers<S extends { encodeStream(): unknown }>(fontkitSubset: S, cache: SubsetCache | null = null): S {
  const subset = fontkitSubset as unknown as EncodableSubset;
  subset.encodeStream = () => {
    const listeners: Record<string, Listener[]> = {};
    const stream = {
      on(event: string, listener: Listener) {
        (listeners[event] ??= []).push(listener);
        return stream;
      },
    };
    queueMicrotask(() => {
      let bytes: Uint8Array;
      try {
        bytes = cache ? cache.encode(subset) : encodeSubset(subset);
      } catch (error) {
        for (const listener of listeners.error ?? []) listener(error);
        return;
      }
      for (const listener of listeners.data ?? []) listener(bytes);
      for (const listener of listeners.end ?? []) listener();
    });
    return stream;
  };
  return fontkitSubset;
}
