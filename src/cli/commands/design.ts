import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { defineCommand } from 'citty';
import type { AppContext } from '../../context';
import { InvalidInputError, LocalsignError } from '../../domain/errors';
import { escapeControls } from '../../log/escape';
import { renderDesignPreview } from '../../pades/stamp';
import { decodeStampPng } from '../../pades/stamp';
import { addDesign, applyDesignsToCache, parseOperatorDesign, removeDesign } from '../../platform/embedded-designs';
import { formatStampDate, resolveStamp } from '../../signing/stamp-values';
import type { CachedDesign } from '../../store/catalog-types';
import { printData, printWarnings, repeatedFlag, UsageError } from '../output';
import { assertOutputFolder, writeOutputFile } from '../output-file';
import { commonArgs, openExistingContext } from '../settings';
import { osErrorInWords } from '../../domain/os-errors';

/**
 * `design:list|add|remove|preview`: the stamp designs of the embedded platform, kept in
 * embedded.json. A change reaches the cache at once, so `GET /v1/designs` of a
 * running service serves it on the next request (it re-reads cache.json on change) and `sync`
 * keeps it. A remote platform's designs are its console's to change.
 */

function embeddedContext(args: Record<string, unknown>, rawArgs: string[]): AppContext {
  const ctx = openExistingContext(args, rawArgs);
  const pairing = ctx.currentPairing();
  if (pairing?.platform === 'remote') {
    void ctx.close();
    throw new LocalsignError('invalid', 'this machine is paired with a remote platform: its designs are changed on the platform\'s console (`localsign designs` lists what the service serves)');
  }
  if (!existsSync(ctx.paths.embedded)) {
    void ctx.close();
    throw new LocalsignError('not_paired', 'the embedded platform is not set up here; run `localsign init --embedded`');
  }
  return ctx;
}

/** Names and keys escaped like the logs: a design file's text never steers the terminal. */
function describeDesign(d: CachedDesign, isDefault: boolean): string {
  const s = d.stamp;
  const vars = d.variables.map((v) => `${escapeControls(v.name)}${v.required ? ' (required)' : ''}`).join(', ') || 'no variables';
  return `${escapeControls(d.design_key)}  ${escapeControls(d.name)}${isDefault ? '  [default]' : ''}\n    page ${s.page}, x ${s.x} y ${s.y}, ${s.width} x ${s.height} pt, ${s.lines.length} line(s)${s.image_png_base64 ? ', logo' : ''}; variables: ${vars}`;
}

export const designListCommand = defineCommand({
  meta: { name: 'design:list', description: 'List the stamp designs of the embedded platform' },
  args: { ...commonArgs },
  async run({ args, rawArgs }) {
    const ctx = embeddedContext(args, rawArgs);
    try {
      const cfg = ctx.embedded.get();
      printData(Boolean(args.json), { default_design_key: cfg.default_design_key, designs: cfg.designs }, () =>
        cfg.designs.length === 0 ? 'No designs; add one with `localsign design:add FILE`' : cfg.designs.map((d) => describeDesign(d, d.design_key === cfg.default_design_key)).join('\n'),
      );
    } finally {
      await ctx.close();
    }
  },
});

/** The operator's file: JSON, with an optional "logo" PNG file (relative to it) read into the stamp. */
function readDesignFile(path: string): CachedDesign {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`${path}: ${code ? `cannot read it: ${osErrorInWords(e)}` : `not JSON (${(e as Error).message})`}`);
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'logo' in raw) {
    const { logo, ...rest } = raw as Record<string, unknown>;
    if (typeof logo !== 'string') throw new InvalidInputError(`${path}: logo must be the path of a PNG file`);
    const logoPath = resolve(dirname(path), logo);
    let png: Buffer;
    try {
      png = readFileSync(logoPath);
    } catch (e) {
      throw new InvalidInputError(`${path}: logo ${logoPath} cannot be read: ${osErrorInWords(e)}`);
    }
    const stamp = rest.stamp && typeof rest.stamp === 'object' ? (rest.stamp as Record<string, unknown>) : {};
    raw = { ...rest, stamp: { ...stamp, image_png_base64: png.toString('base64') } };
  }
  const design = parseOperatorDesign(raw, path);
  if (design.stamp.image_png_base64) {
    try {
      decodeStampPng(design.stamp.image_png_base64);
    } catch (e) {
      throw new InvalidInputError(`${path}: ${(e as Error).message}`);
    }
  }
  return design;
}

export const designAddCommand = defineCommand({
  meta: { name: 'design:add', description: 'Add a stamp design from a JSON file (name, variables, stamp {page, x, y, width, height, lines}, optional "logo": a PNG file)' },
  args: {
    ...commonArgs,
    file: { type: 'positional', description: 'The design, as JSON', required: true },
    default: { type: 'boolean', description: 'Make it the default design of the pades credentials' },
    replace: { type: 'boolean', description: 'Replace the design with the same design_key' },
  },
  async run({ args, rawArgs }) {
    const design = readDesignFile(String(args.file));
    const ctx = embeddedContext(args, rawArgs);
    try {
      const { replaced } = addDesign(ctx.embedded, design, { replace: Boolean(args.replace), makeDefault: Boolean(args.default) });
      applyDesignsToCache(ctx.cache, ctx.embedded.get());
      printData(Boolean(args.json), { design_key: design.design_key, name: design.name, replaced, default: ctx.embedded.get().default_design_key === design.design_key }, () =>
        `${replaced ? 'Replaced' : 'Added'} design ${escapeControls(design.design_key)} "${escapeControls(design.name)}"${args.default ? ' (now the default)' : ''}; the running service serves it now (localsign design:preview ${escapeControls(design.design_key)} -o preview.png shows it)`,
      );
    } finally {
      await ctx.close();
    }
  },
});

export const designRemoveCommand = defineCommand({
  meta: { name: 'design:remove', description: 'Remove a stamp design of the embedded platform' },
  args: {
    ...commonArgs,
    key: { type: 'positional', description: 'Its design_key', required: true },
    force: { type: 'boolean', description: 'Remove it even when it is the default design' },
  },
  async run({ args, rawArgs }) {
    const ctx = embeddedContext(args, rawArgs);
    try {
      const removed = removeDesign(ctx.embedded, String(args.key), { force: Boolean(args.force) });
      applyDesignsToCache(ctx.cache, ctx.embedded.get());
      printData(Boolean(args.json), { design_key: removed.design_key, name: removed.name, removed: true }, () => `Removed design ${escapeControls(removed.design_key)} "${escapeControls(removed.name)}"`);
    } finally {
      await ctx.close();
    }
  },
});

/** PNG through poppler's pdftoppm (150 dpi), or null when it is not installed. */
function pdfToPng(pdf: Uint8Array): Buffer | null {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-preview-'));
  try {
    writeFileSync(join(dir, 'p.pdf'), pdf);
    const r = spawnSync('pdftoppm', ['-png', '-r', '150', '-singlefile', join(dir, 'p.pdf'), join(dir, 'p')], { timeout: 30_000 });
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (r.status !== 0) throw new LocalsignError('internal', `pdftoppm failed: ${String(r.stderr).trim().split('\n')[0]}`);
    return readFileSync(join(dir, 'p.png'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const designPreviewCommand = defineCommand({
  meta: { name: 'design:preview', description: 'Draw a design on a blank page: a PNG (with poppler\'s pdftoppm) or a PDF' },
  args: {
    ...commonArgs,
    key: { type: 'positional', description: 'Its design_key', required: true },
    out: { type: 'string', alias: 'o', description: 'preview.png, or preview.pdf (a .png becomes a .pdf beside it when pdftoppm is not installed)', required: true },
    var: { type: 'string', description: 'A value to show, name=value (repeatable; default: each variable as <name>)' },
  },
  async run({ args, rawArgs }) {
    const out = String(args.out);
    assertOutputFolder(out);
    const values: Record<string, string> = {};
    for (const pair of repeatedFlag(rawArgs, 'var')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError(`--var takes name=value, got "${pair.slice(0, 40)}"`);
      values[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    const ctx = embeddedContext(args, rawArgs);
    let design: CachedDesign | undefined;
    try {
      design = ctx.embedded.get().designs.find((d) => d.design_key === args.key);
      if (!design) throw new LocalsignError('not_found', `no design ${String(args.key).slice(0, 64)} (design:list shows them)`);
    } finally {
      await ctx.close();
    }
    const sample: Record<string, string> = { signer_name: '<signer_name>', reason: '<reason>', location: '<location>' };
    for (const v of design.variables) sample[v.name] = `<${v.name}>`;
    const stamp = resolveStamp(design, { ...sample, ...values, date: formatStampDate(new Date()) });
    const { pdf, warnings } = await renderDesignPreview(stamp, `localsign design preview: ${design.name} (${design.design_key}), page ${String(design.stamp.page)}, x ${design.stamp.x} y ${design.stamp.y}`);
    let written = out;
    if (/\.png$/i.test(out)) {
      const png = pdfToPng(pdf);
      if (png) writeOutputFile(out, png);
      else {
        written = out.replace(/\.png$/i, '.pdf');
        writeOutputFile(written, pdf);
      }
    } else writeOutputFile(out, pdf);
    // What a signature with these values would be warned of (a line cut with "…"), as `sign pdf` prints it.
    printWarnings(warnings);
    printData(Boolean(args.json), { design_key: design.design_key, out: written, format: written.toLowerCase().endsWith('.png') ? 'png' : 'pdf', warnings }, () =>
      written === out ? `Wrote ${written}` : `pdftoppm (poppler-utils) is not installed: wrote the preview as ${written} instead`,
    );
  },
});
