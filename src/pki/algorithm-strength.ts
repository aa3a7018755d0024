/**
 * Whether a signature's algorithms were still strong enough at the time it is judged, by ETSI TS
 * 119 312 (V1.4.2) as EU DSS's default validation policy encodes it (dss-policy-jaxb
 * constraint.xml, `Cryptographic/AlgoExpirationDate`): each digest and each key size is
 * acceptable until the start of a year. DSS's policy dates from 2022 and lowers a lapse after
 * that year to a warning (`LevelAfterUpdate="WARN"`): a lapse up to 2022 makes the signature
 * too weak to trust, a later one is named as a warning. Ed25519 and Ed448 (RFC 8032) are not in
 * that table ("not referenced in ETSI/SOGIS"): accepted and named so. Pure: the time comes in.
 */

/** The year of the policy: a lapse after its start is a warning, not a failure. */
const POLICY_YEAR = 2022;

/** Digests by their report label: acceptable until the start of that year. */
const DIGEST_UNTIL: Record<string, number> = {
  MD5: 2005,
  'SHA-1': 2009,
  'SHA-224': 2026,
  'SHA-256': 2029,
  'SHA-384': 2029,
  'SHA-512': 2029,
  'SHA3-256': 2029,
  'SHA3-384': 2029,
  'SHA3-512': 2029,
};

/** [least key bits, acceptable until]: the entry for the largest size a key reaches. */
const RSA_UNTIL: [number, number][] = [[1024, 2009], [1536, 2016], [1900, 2026], [3000, 2029]];
const ECDSA_UNTIL: [number, number][] = [[160, 2013], [192, 2013], [224, 2016], [256, 2029]];

const CURVE_BITS: Record<string, number> = {
  'P-256': 256, 'P-384': 384, 'P-521': 521, secp256k1: 256, brainpoolP256r1: 256, brainpoolP384r1: 384, brainpoolP512r1: 512,
};

export interface AlgorithmJudgement {
  /** The first year the weakest of them is no longer acceptable in; null when none of them is in the table. */
  acceptableUntil: number | null;
  /** Lapsed by the table's own year or before: the signature is not to be trusted. */
  tooWeak: string[];
  /** Lapsed since, or not in the table. */
  warnings: string[];
}

function keyUntil(key: string): { until: number | null; note?: string } {
  const [type, size] = key.split(' ') as [string, string | undefined];
  if (type === 'Ed25519' || type === 'Ed448') return { until: null, note: `${type} is not in ETSI TS 119 312's table as EU DSS's default policy encodes it` };
  const table = type === 'RSA' || type === 'RSASSA-PSS' ? RSA_UNTIL : type === 'EC' ? ECDSA_UNTIL : null;
  const bits = type === 'EC' ? CURVE_BITS[size ?? ''] : Number(size);
  if (!table || !bits) return { until: null, note: `the key ${key} is not in ETSI TS 119 312's table` };
  const entry = [...table].reverse().find(([least]) => bits >= least);
  return entry ? { until: entry[1] } : { until: 0, note: `the key ${key} is below every size ETSI TS 119 312 lists` };
}

/** `digest` and `key` (labels as cms-check.ts reports them) judged at `at`. */
export function judgeAlgorithms(digest: string | null, key: string | null, at: Date): AlgorithmJudgement {
  const out: AlgorithmJudgement = { acceptableUntil: null, tooWeak: [], warnings: [] };
  const judge = (what: string, until: number | null, note?: string) => {
    if (note) out.warnings.push(note);
    if (until === null) return;
    out.acceptableUntil = out.acceptableUntil === null ? until : Math.min(out.acceptableUntil, until);
    if (at.getTime() < Date.UTC(until, 0, 1)) return;
    const line = `${what} is acceptable for signatures until ${until} (ETSI TS 119 312), not at ${at.toISOString()}`;
    (until <= POLICY_YEAR ? out.tooWeak : out.warnings).push(line);
  };
  if (digest) {
    const until = DIGEST_UNTIL[digest];
    // SHAKE256 is the digest Ed448 fixes (RFC 8419): judged with the key.
    if (until !== undefined) judge(digest, until);
    else if (digest !== 'SHAKE256') judge(digest, null, `the digest ${digest} is not in ETSI TS 119 312's table`);
  }
  if (key) {
    const { until, note } = keyUntil(key);
    judge(`a ${key} key`, until, note);
  }
  return out;
}
