import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, runCliAsync } from '../../helpers/cli';
import { runPdfsig } from '../../helpers/pdf-tools';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure } from './_cli-expect';

/**
 * `design:list|add|remove|preview` on the embedded platform (issue 11): a design added from a
 * file is served by the running service and drawn where it says, on a page rendered by poppler.
 */
const RED_PNG = join(__dirname, '../../vectors/stamp/red-20x20.png');
const BOX = { page: 'first', x: 300, y: 700, width: 250, height: 60 };
const DESIGN = {
  name: 'Invoice stamp',
  variables: [{ name: 'invoice', required: true, description: 'Invoice number' }],
  stamp: { ...BOX, lines: [{ text: 'Invoice {{invoice}} approved', size: 12 }, { text: '{{signer_name}} {{date}}', size: 9 }] },
  logo: 'logo.png',
};

/** Bounding box, in PDF points from the lower-left corner, of the dark pixels of a 72 dpi render. */
function darkBox(pdfPath: string, below?: number): { x1: number; y1: number; x2: number; y2: number } {
  const pgm = execFileSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', pdfPath]);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
  const [w, h] = [Number(header[1]), Number(header[2])];
  const data = pgm.subarray(header[0].length);
  let box = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
  for (let row = 0; row < h; row += 1) {
    const y = h - 1 - row;
    if (below !== undefined && y >= below) continue;
    for (let x = 0; x < w; x += 1) {
      if (data[row * w + x]! < 160) box = { x1: Math.min(box.x1, x), y1: Math.min(box.y1, y), x2: Math.max(box.x2, x), y2: Math.max(box.y2, y) };
    }
  }
  return box;
}

describe('stamp designs on the embedded platform', () => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let designKey = '';
  const designFile = join(home, 'invoice.json');

  beforeAll(async () => {
    const creds = initEmbeddedWithWrapper(home);
    service = await startServiceProcess({ home });
    call = authed(service.url, creds);
    copyFileSync(RED_PNG, join(home, 'logo.png'));
    writeFileSync(designFile, JSON.stringify(DESIGN));
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it.each([
    [{ ...DESIGN, stamp: { ...DESIGN.stamp, width: -5 } }, 'stamp.width must be a number of points above 0 and at most 14400'],
    [{ ...DESIGN, varaibles: [] }, 'unknown field varaibles; a design has design_key, name, variables, stamp (and "logo": a PNG file)'],
    [{ ...DESIGN, variables: [] }, 'stamp.lines[0].text uses {{invoice}}, which is not a variable of the design (declare it in "variables", or use signer_name, reason, location, date)'],
    [{ ...DESIGN, stamp: { ...DESIGN.stamp, page: 0 } }, 'stamp.page must be "first", "last" or a page number counted from 1'],
    [{ ...DESIGN, variables: [{ name: 'invoice', required: 'yes' }] }, 'variables[0].required must be true or false'],
    [{ ...DESIGN, logo: 'invoice.json' }, 'stamp.image_png_base64 is not a PNG image (no PNG signature)'],
  ])('a design with a problem is refused, naming the field (%#)', (design, problem) => {
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify(design));
    expect(expectOneLineFailure(runCli(['design:add', bad], { home }))).toBe(`${bad}: ${problem}`);
  });

  it('design:add: the running service serves it at once, and design:list shows it', async () => {
    const before = ((await (await call('/v1/designs')).json()) as { designs: unknown[] }).designs.length;
    const added = parseJson<{ design_key: string; replaced: boolean }>(runCli(['design:add', designFile, '--json'], { home }));
    designKey = added.design_key;
    expect(added.replaced).toBe(false);
    const served = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string; name: string; variables: unknown[] }[] }).designs;
    expect(served).toHaveLength(before + 1);
    expect(served.find((d) => d.design_key === designKey)).toEqual({ design_key: designKey, name: 'Invoice stamp', variables: DESIGN.variables });
    expect(runCli(['design:list'], { home }).stdout).toContain(`${designKey}  Invoice stamp\n    page first, x 300 y 700, 250 x 60 pt, 2 line(s), logo; variables: invoice (required)`);
    // Adding the same key again needs --replace.
    writeFileSync(join(home, 'again.json'), JSON.stringify({ ...DESIGN, design_key: designKey }));
    expect(expectOneLineFailure(runCli(['design:add', join(home, 'again.json')], { home }))).toBe(`design ${designKey} exists ("Invoice stamp"); --replace replaces it`);
  });

  it('a PDF signed with it has the stamp where the design says (rendered by pdftoppm)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]);
    const input = Buffer.from(await doc.save());
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { type: string; credential_key: string }[] }).credentials;
    const pades = creds.find((c) => c.type === 'pades')!.credential_key;
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: input.toString('base64'), credential_key: pades, design_key: designKey, variables: { invoice: 'INV-42' }, signer_name: 'Ana' }) });
    expect(res.status).toBe(202);
    const { request_id } = (await res.json()) as { request_id: string };
    const result = (await (await call(`/v1/results/${request_id}?wait=20`)).json()) as { status: string; pdf_base64: string };
    expect(result.status).toBe('DONE');
    const signed = join(home, 'signed.pdf');
    writeFileSync(signed, Buffer.from(result.pdf_base64, 'base64'));
    expect((await runPdfsig(signed)).signatures.map((s) => s.validation)).toEqual(['Signature is Valid.']);
    // The dark pixels are the stamp's border, text and logo: the box of the design, ±1 pt.
    const box = darkBox(signed);
    expect(box.x1).toBeGreaterThanOrEqual(BOX.x - 1);
    expect(box.x1).toBeLessThanOrEqual(BOX.x + 1);
    expect(box.x2).toBeGreaterThanOrEqual(BOX.x + BOX.width - 2);
    expect(box.x2).toBeLessThanOrEqual(BOX.x + BOX.width);
    expect(box.y1).toBeGreaterThanOrEqual(BOX.y - 1);
    expect(box.y1).toBeLessThanOrEqual(BOX.y + 1);
    expect(box.y2).toBeGreaterThanOrEqual(BOX.y + BOX.height - 2);
    expect(box.y2).toBeLessThanOrEqual(BOX.y + BOX.height);
    const text = execFileSync('pdftotext', ['-layout', signed, '-']).toString('utf8');
    expect(text).toMatch(/Invoice INV-42 approved/);
  });

  it('design:preview draws it on a blank page: PNG with pdftoppm, else a PDF', async () => {
    const png = join(home, 'preview.png');
    const r = await runCliAsync(['design:preview', designKey, '-o', png, '--var', 'invoice=INV-7'], { home });
    expect(r.stdout).toBe(`Wrote ${png}\n`);
    expect(readFileSync(png).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    // Without poppler on the PATH the preview is a PDF, said so; its stamp sits where the design says.
    const noPoppler = await runCliAsync(['design:preview', designKey, '-o', png], { home, env: { PATH: '/nonexistent' } });
    expect(noPoppler.stdout).toBe(`pdftoppm (poppler-utils) is not installed: wrote the preview as ${join(home, 'preview.pdf')} instead\n`);
    const box = darkBox(join(home, 'preview.pdf'), 800); // below the caption line at the top
    expect([box.x1, box.y1, box.x2 >= BOX.x + BOX.width - 2, box.y2 >= BOX.y + BOX.height - 2]).toEqual([BOX.x, BOX.y, true, true]);
    expect(execFileSync('pdftotext', [join(home, 'preview.pdf'), '-']).toString('utf8')).toContain('Invoice <invoice> approved');
  });

  it('design:preview says which line a long value would cut (issue 19), on stderr and in --json', async () => {
    const pdf = join(home, 'long.pdf');
    const long = 'X'.repeat(1000);
    const r = await runCliAsync(['design:preview', designKey, '-o', pdf, '--var', `invoice=${long}`], { home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: stamp line \d+ was shortened to fit the stamp's width at 6 pt: .*"…"/m);
    const json = parseJson<{ warnings: string[] }>(await runCliAsync(['design:preview', designKey, '-o', pdf, '--var', `invoice=${long}`, '--json'], { home }));
    expect(json.warnings).toHaveLength(1);
    expect(json.warnings[0]).toMatch(/^stamp line \d+ was shortened/);
    // A value that fits: no warning.
    const short = await runCliAsync(['design:preview', designKey, '-o', pdf, '--var', 'invoice=INV-7', '--json'], { home });
    expect(short.stderr).toBe('');
    expect(parseJson<{ warnings: string[] }>(short).warnings).toEqual([]);
  });

  it('design:remove: refused for the default without --force; gone from the service after', async () => {
    const list = parseJson<{ default_design_key: string; designs: { design_key: string }[] }>(runCli(['design:list', '--json'], { home }));
    expect(expectOneLineFailure(runCli(['design:remove', list.default_design_key], { home }))).toMatch(/is the credentials' default: without it, signatures with no design_key are invisible; --force removes it anyway/);
    expect(runCli(['design:remove', designKey], { home }).stdout).toBe(`Removed design ${designKey} "Invoice stamp"\n`);
    const served = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string }[] }).designs;
    expect(served.map((d) => d.design_key)).not.toContain(designKey);
    expect(expectOneLineFailure(runCli(['design:remove', designKey], { home }))).toBe(`no design ${designKey} (design:list shows them)`);
    expect(existsSync(join(home, 'embedded.json'))).toBe(true);
  });
});
