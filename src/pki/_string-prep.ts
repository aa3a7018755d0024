/**
 * LDAP string preparation (RFC 4518 §2) for caseIgnoreMatch, as RFC 5280 §7.1 requires for name
 * comparison: transcode, map (case folding per RFC 3454 Appendix B.2 included), normalize (NFKC),
 * prohibit, insignificant space handling (§2.6.1). The result compares with ===; null means the
 * string holds a prohibited code point, where RFC 4518 makes the match Undefined (no match).
 */

/** Universal string tags a Name attribute value may carry, and how each is transcoded (RFC 4518 §2.1). */
const STRING_TAGS: Record<number, 'utf8' | 'ascii' | 'latin1' | 'ucs2' | 'ucs4'> = {
  0x0c: 'utf8', // UTF8String
  0x13: 'ascii', // PrintableString
  0x16: 'ascii', // IA5String (emailAddress, domainComponent: caseIgnoreIA5Match, RFC 4517 §4.2.13)
  0x1a: 'ascii', // VisibleString
  0x14: 'latin1', // TeletexString: T.61 in theory, Latin-1 in every certificate seen in practice
  0x1e: 'ucs2', // BMPString
  0x1c: 'ucs4', // UniversalString
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The Unicode text of a string-typed value, or null for another type or an encoding that does not decode. */
export function transcode(tag: number, content: Uint8Array): string | null {
  switch (STRING_TAGS[tag]) {
    case 'utf8':
      try {
        return utf8.decode(content);
      } catch {
        return null;
      }
    case 'ascii':
      return content.every((b) => b < 0x80) ? Buffer.from(content).toString('latin1') : null;
    case 'latin1':
      return Buffer.from(content).toString('latin1');
    case 'ucs2': {
      if (content.length % 2 !== 0) return null;
      let s = '';
      for (let i = 0; i < content.length; i += 2) s += String.fromCharCode((content[i]! << 8) | content[i + 1]!);
      return s;
    }
    case 'ucs4': {
      if (content.length % 4 !== 0) return null;
      let s = '';
      for (let i = 0; i < content.length; i += 4) {
        const cp = ((content[i]! << 24) | (content[i + 1]! << 16) | (content[i + 2]! << 8) | content[i + 3]!) >>> 0;
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
        s += String.fromCodePoint(cp);
      }
      return s;
    }
    default:
      return null;
  }
}

/**
 * §2.2 Map: soft hyphens, joiners, variation selectors, U+FFFC, ZERO WIDTH SPACE and the control
 * and format code points it lists map to nothing; the whitespace controls and every separator
 * (Zs, Zl, Zp) map to SPACE.
 */
const MAP_TO_NOTHING =
  /[\u00AD\u1806\u034F\u180B-\u180D\uFE00-\uFE0F\uFFFC\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F\u06DD\u070F\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2063\u206A-\u206F\uFEFF\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0001}\u{E0020}-\u{E007F}]/gu;
const MAP_TO_SPACE = /[\u0009-\u000D\u0085\p{Zs}\p{Zl}\p{Zp}]/gu;

/** §2.4 Prohibit: unassigned (in the Unicode version V8 knows, where RFC 4518 names 3.2), private use, surrogates and U+FFFD. */
const PROHIBITED = /[\p{Cn}\p{Co}\p{Cs}\uFFFD]/u;

/**
 * RFC 3454 B.2 case folding. JavaScript has no full case fold; upper then lower case gives the
 * B.2 mapping for the multi-character folds that matter (ß to ss, final sigma to sigma, the
 * ligatures), and NFKC after it (§2.3) settles the compatibility forms.
 */
function caseFold(s: string): string {
  return s.toUpperCase().toLowerCase();
}

/** §2.6.1: leading and trailing spaces dropped, each inner run of spaces one space (compared, not stored). */
function squeezeSpaces(s: string): string {
  return s.split(' ').filter((w) => w.length > 0).join(' ');
}

/** The prepared form of `s` for caseIgnoreMatch, or null when a prohibited code point makes it Undefined. */
export function prepareCaseIgnore(s: string): string | null {
  const mapped = caseFold(s.replace(MAP_TO_NOTHING, '').replace(MAP_TO_SPACE, ' ')).normalize('NFKC');
  // Folding after NFKC can leave a string that is not folded again (RFC 3454 §3.2's reason for B.2).
  const folded = caseFold(mapped).normalize('NFKC');
  if (PROHIBITED.test(folded)) return null;
  return squeezeSpaces(folded);
}
