/** How many names an error message lists before "(and N more)". */
const NAMES_LISTED = 10;

/** At most ten names, each cut to 40 characters: a message never grows with the input. */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_LISTED).map((k) => k.slice(0, 40)).join(', ');
  return names.length > NAMES_LISTED ? `${shown} (and ${names.length - NAMES_LISTED} more)` : shown;
}
