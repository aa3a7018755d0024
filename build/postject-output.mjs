/**
 * What postject prints that nobody can act on (nine lines on every build, among which a real
 * error is easy to miss):
 * - "Can't find string offset for section name '.note…'": LIEF reading the ELF notes of Node's
 *   Linux runtime, which has no string table entry for them; the blob is injected all the same;
 * - "The signature seems corrupted!": LIEF finding Node's own Authenticode signature on the
 *   Windows runtime, which injecting breaks by design; windows-exe.mjs signs the result again.
 * Every other line (a real error) is kept.
 */
const NOISE = [/^warning: Can't find string offset for section name '\.note[^']*'$/, /^warning: The signature seems corrupted!$/];

/** The lines of postject's stderr worth showing. */
export function postjectLinesToShow(stderr) {
  return stderr
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !NOISE.some((re) => re.test(line.trim())));
}
