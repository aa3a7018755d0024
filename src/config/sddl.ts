/**
 * Reads the DACL of an SDDL string (Microsoft "Security Descriptor String Format", the form
 * `icacls /save` writes): which principals an ACL lets read a file; and its owner (the "O:" part,
 * which `icacls /save` leaves out and PowerShell's `(Get-Acl).Sddl` writes). Pure; SIDs stay strings.
 * Names like "BUILTIN\Users" are localised by Windows and encoded in the console code page, so
 * the check compares SIDs, never names.
 */

/** SID string aliases of the well-known principals an ACL on a user's files can name (MS-DTYP §2.4.2.4). */
const SID_ALIASES: Record<string, string> = {
  AN: 'S-1-5-7', // anonymous logon
  AU: 'S-1-5-11', // authenticated users
  BA: 'S-1-5-32-544', // administrators
  BG: 'S-1-5-32-546', // guests
  BO: 'S-1-5-32-551', // backup operators
  BU: 'S-1-5-32-545', // users
  CO: 'S-1-3-0', // creator owner
  CG: 'S-1-3-1', // creator group
  IU: 'S-1-5-4', // interactive
  LS: 'S-1-5-19', // local service
  NS: 'S-1-5-20', // network service
  NU: 'S-1-5-2', // network
  OW: 'S-1-3-4', // owner rights
  PU: 'S-1-5-32-547', // power users
  RD: 'S-1-5-32-555', // remote desktop users
  SU: 'S-1-5-6', // service
  SY: 'S-1-5-18', // local system
  WD: 'S-1-1-0', // everyone
  AC: 'S-1-15-2-1', // all application packages
};

/** Friendly names for messages (English; the SID is printed beside them). */
export const WELL_KNOWN_NAMES: Record<string, string> = {
  'S-1-1-0': 'Everyone',
  'S-1-5-11': 'Authenticated Users',
  'S-1-5-32-545': 'Users',
  'S-1-5-32-546': 'Guests',
  'S-1-5-4': 'Interactive',
  'S-1-5-2': 'Network',
  'S-1-5-7': 'Anonymous',
  'S-1-15-2-1': 'All Application Packages',
};

/** Access mask bits by SDDL right code (winnt.h; the two-letter codes of the SDDL "rights" field). */
const RIGHT_CODES: Record<string, number> = {
  GA: 0x10000000, GR: 0x80000000, GW: 0x40000000, GX: 0x20000000,
  RC: 0x00020000, SD: 0x00010000, WD: 0x00040000, WO: 0x00080000,
  RP: 0x10, WP: 0x20, CC: 0x1, DC: 0x2, LC: 0x4, SW: 0x8, LO: 0x80, DT: 0x40, CR: 0x100,
  FA: 0x001f01ff, FR: 0x00120089, FW: 0x00120116, FX: 0x001200a0,
  KA: 0x000f003f, KR: 0x00020019, KW: 0x00020006, KX: 0x00020019,
};

/**
 * Rights that let a principal read a file's contents, or give itself that right: FILE_READ_DATA
 * (LIST_DIRECTORY on a folder), WRITE_DAC, WRITE_OWNER, GENERIC_ALL, GENERIC_READ.
 */
export const READ_OR_TAKE_MASK = 0x1 | 0x00040000 | 0x00080000 | 0x10000000 | 0x80000000;

export interface Ace {
  /** "A" allow, "D" deny, "XA" callback allow… */
  type: string;
  /** Flags as written: "OI", "CI", "IO", "ID" (inherited)… */
  flags: string[];
  mask: number;
  /** S-1-… form (aliases resolved; "LA"/"LG" and unknown aliases kept as written). */
  sid: string;
}

export interface Dacl {
  /** A null DACL ("NO_ACCESS_CONTROL") grants everyone everything. */
  nullDacl: boolean;
  aces: Ace[];
}

export function resolveSid(text: string): string {
  return SID_ALIASES[text] ?? text;
}

/** "FA", "0x1301bf", "CCDCLCSWRPWPDTLOCRSDRCWDWO": unknown codes count as every right (refuse rather than miss). */
export function parseRights(text: string): number {
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text.slice(2), 16) >>> 0;
  if (/^\d+$/.test(text)) return Number(text) >>> 0;
  let mask = 0;
  for (let i = 0; i < text.length; i += 2) {
    const bits = RIGHT_CODES[text.slice(i, i + 2)];
    mask |= bits ?? 0xffffffff;
  }
  return mask >>> 0;
}

/** The ACE strings of a DACL body, up to the SACL ("S:") if one follows; nesting is conditional ACEs. */
function splitAces(body: string): { flags: string; aces: string[] } {
  const aces: string[] = [];
  let depth = 0;
  let start = -1;
  let flagsEnd = -1;
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i];
    if (depth === 0 && body.startsWith('S:', i)) break;
    if (c === '(') {
      if (flagsEnd < 0) flagsEnd = i;
      if (depth === 0) start = i + 1;
      depth += 1;
    } else if (c === ')') {
      depth -= 1;
      if (depth === 0) aces.push(body.slice(start, i));
    }
  }
  return { flags: body.slice(0, flagsEnd < 0 ? body.length : flagsEnd), aces };
}

/**
 * The "D:" part of an SDDL string (O:, G:, D:, S: in that order; a ":" only ever follows one of
 * these four letters, so the first "D:" starts the DACL). No "D:" means no DACL is present, which
 * Windows treats as a null DACL: everyone has every right.
 */
export function parseDacl(sddl: string): Dacl {
  const d = sddl.indexOf('D:');
  if (d < 0) return { nullDacl: true, aces: [] };
  const { flags, aces } = splitAces(sddl.slice(d + 2));
  return {
    nullDacl: flags.includes('NO_ACCESS_CONTROL'),
    aces: aces.map((text): Ace => {
      const [type = '', aceFlags = '', rights = '', , , sid = ''] = text.split(';');
      return { type, flags: aceFlags.match(/.{2}/g) ?? [], mask: parseRights(rights), sid: resolveSid(sid) };
    }),
  };
}

/**
 * The owner of an SDDL string: "O:" opens it (before G:, D: and S:), a SID string ("S-1-5-21-…")
 * or a two-letter alias ("BA", "SY"), resolved; null when there is no owner part. An owner can
 * always read and rewrite the DACL (MS-DTYP §2.5.3.2, implicit READ_CONTROL and WRITE_DAC), so
 * it counts as one who can read whatever the DACL says.
 */
export function parseOwner(sddl: string): string | null {
  const m = /^O:(S-1-\d+(?:-\d+)+|[A-Z]{2})(?=G:|D:|S:|$)/.exec(sddl.trim());
  return m ? resolveSid(m[1]!) : null;
}

/**
 * SIDs that an allow ACE lets read (or take) the object or, through inheritance, what is created
 * in it; deny ACEs only take rights away, so they are not counted.
 */
export function readersOf(dacl: Dacl): string[] {
  if (dacl.nullDacl) return ['S-1-1-0'];
  const out = new Set<string>();
  for (const ace of dacl.aces) {
    if ((ace.type === 'A' || ace.type === 'XA') && ace.mask & READ_OR_TAKE_MASK) out.add(ace.sid);
  }
  return [...out];
}
