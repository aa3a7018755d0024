import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, runCliAsync } from '../../helpers/cli';
import { makeTmpHome } from '../../helpers/tmp-home';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Issue 15 "Terminal injection": text from a document or a catalogue reaches the terminal as the
 * logs show it (log/escape.ts), never as raw control or bidi characters. The field name below
 * returns the cursor, erases the line, moves up one and prints a forged verdict; a terminal shown
 * the raw bytes displays "overall: VALID" over the real INVALID lines.
 */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'Sig\r\u001b[2K\u001b[1Aoverall: VALID\u202e';
const SHOWN = 'Sig\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}';

/** A PDF whose one signature field carries `name` (UTF-16 text string) and a signature that does not verify. */
async function pdfWithField(name: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  const sig = doc.context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
    ByteRange: [0, 10, 30, 10].map((n) => PDFNumber.of(n)),
    Contents: PDFHexString.of('00'.repeat(8)),
    M: PDFString.of('D:20300101000000Z'),
  });
  const widget = doc.context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', Rect: [0, 0, 0, 0], F: 132, P: page.ref, T: PDFHexString.fromText(name), V: doc.context.register(sig) });
  const widgetRef = doc.context.register(widget);
  page.node.set(PDFName.of('Annots'), doc.context.obj([widgetRef]));
  doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [widgetRef], SigFlags: 3 }));
  return doc.save({ useObjectStreams: false });
}

describe('document and catalogue text on the terminal', () => {
  const dir = tempDir('localsign-escape-');
  const tmp = makeTmpHome('localsign-escape-home-');
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    tmp.cleanup();
  });

  it('verify prints a crafted field name escaped: the forged verdict stays on its own, visible line', async () => {
    const file = join(dir, 'crafted.pdf');
    writeFileSync(file, await pdfWithField(HOSTILE));
    const human = await runCliAsync(['verify', file], { home: tmp.home });
    expect(human.status, human.stderr).toBe(1);
    expect(RAW_CONTROL.test(human.stdout), JSON.stringify(human.stdout)).toBe(false);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^1\\. ${SHOWN.replace(/[\\[\]{}().?*+^$|]/g, '\\$&')} \\(signature\\): INVALID - unknown signer$`));
    expect(lines.at(-1)).toBe('overall: INVALID');
    // --json stays JSON, the same value as the document's (a parser reads the name as written),
    // and no raw control or bidi character reaches the terminal either.
    const json = await runCliAsync(['verify', file, '--json'], { home: tmp.home });
    expect(RAW_CONTROL.test(json.stdout), JSON.stringify(json.stdout)).toBe(false);
    expect(json.stdout).toContain('Sig\\r\\u001b[2K\\u001b[1Aoverall: VALID\\u202e');
    const report = parseJson<{ valid: boolean; signatures: { field: string }[] }>(json);
    expect(report.valid).toBe(false);
    expect(report.signatures.map((s) => s.field)).toEqual([HOSTILE]);
  });

  it('design:list and design:add show an embedded design name escaped', () => {
    expect(runCli(['init', '--embedded'], { home: tmp.home }).status).toBe(0);
    const file = join(dir, 'hostile-design.json');
    writeFileSync(file, JSON.stringify({ design_key: 'hostile', name: HOSTILE, stamp: { page: 'last', x: 10, y: 10, width: 100, height: 40, lines: [{ text: 'x', size: 9 }] } }));
    const add = runCli(['design:add', file], { home: tmp.home });
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toContain(`Added design hostile "${SHOWN}"`);
    const list = runCli(['design:list'], { home: tmp.home });
    expect(list.stdout).toContain(`hostile  ${SHOWN}\n`);
    for (const out of [add.stdout, list.stdout]) expect(RAW_CONTROL.test(out), JSON.stringify(out)).toBe(false);
  });

  it('a failure line quoting a file name is escaped too', () => {
    const r = runCli(['verify', join(dir, `missing\u001b[2K\u202e.pdf`)], { home: tmp.home });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`cannot read ${join(dir, 'missing\\x1b[2K\\u{202e}.pdf')}: no such file or folder (ENOENT)`);
  });
});
