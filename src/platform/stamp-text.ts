/**
 * `{{variable}}` placeholders in a design's stamp lines (PLATFORM.md: `lines:[{text, size}]`, `text`
 * holds `{{variable}}` placeholders). The service fills `variables`, `signer_name`, `reason`,
 * `location` and `date`; it checks required and unknown names itself (CONTRACT.md, POST
 * /v1/pades/sign) using listPlaceholders, so filling here never fails.
 */

/**
 * `{{ name }}` with optional blanks inside the braces. A name is letters, digits, `_`, `.` or `-`
 * (any script: designs are written by people in their own language). Anything else between
 * braces is not a placeholder and stays as written.
 */
const PLACEHOLDER = /\{\{[ \t]*([\p{L}\p{N}_.-]+)[ \t]*\}\}/gu;

/** The distinct placeholder names in `text`, in order of first appearance. */
export function listPlaceholders(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Replaces every placeholder with its value; a missing (undefined) value becomes the empty
 * string. One pass over the template: a value that itself contains `{{x}}` is inserted
 * literally, never expanded again (a signer name must not be able to pull in other variables).
 * Only own properties count, so `{{constructor}}` cannot reach Object.prototype.
 */
export function fillStampText(text: string, values: Record<string, string | undefined>): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? '') : '',
  );
}
