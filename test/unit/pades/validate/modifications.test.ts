/**
 * The change analysis (pades/validate/modifications.ts) on hand-written revisions: a first revision that
 * stands for a signed one (a signed field, a text field, a page drawing a font and a form XObject,
 * metadata, a structure tree, a name tree, /Info), and each update a real tool or an attacker
 * writes after it, with the class it gets (issue 17): none; dss_and_timestamps; signing_and_forms;
 * annotations; other. The signed revision is the first one (its end is what a /ByteRange would
 * cover); no signature is needed to judge what came after it.
 */
import { describe, expect, it } from 'vitest';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { analyseChanges, ChangeAnalysis, changesAllowed, MAX_CHANGED_OBJECTS, type ModificationReport } from '../../../../src/pades/validate/modifications';
import { appendRevision, firstRevision, offsetOf, type Body } from '../../../helpers/pdf-revisions';

const CONTENT = 'BT /F1 12 Tf 72 700 Td (Amount: 100 EUR) Tj ET /Fm0 Do';
const XMP = '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta><?xpacket end="w"?>';

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Fm0 6 0 R >> >> /Annots [8 0 R 9 0 R] >>';
const CATALOG = '<< /Type /Catalog /Pages 2 0 R /AcroForm 7 0 R /Metadata 12 0 R /Lang (en-GB) /StructTreeRoot 13 0 R /Names 15 0 R >>';
const SIGNED_FIELD = '<< /FT /Sig /T (Signature1) /V 10 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>';
const TEXT_FIELD = (v: string, ap = 11) => `<< /FT /Tx /T (name) /V (${v}) /Type /Annot /Subtype /Widget /Rect [72 600 272 620] /F 4 /P 3 0 R /AP << /N ${ap} 0 R >> /DA (/Helv 12 Tf 0 g) >>`;

/** The revision every test starts from: objects 1-17, /Info 17; overrides replace bodies. */
function signedRevision(overrides: Record<number, Body> = {}): Uint8Array {
  const objects: Record<number, Body> = {
    1: CATALOG,
    2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    3: PAGE,
    4: { dict: '', data: CONTENT },
    5: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    6: { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842]', data: '1 1 1 rg 70 650 300 80 re f' },
    7: '<< /Fields [8 0 R 9 0 R] /SigFlags 3 >>',
    8: SIGNED_FIELD,
    9: TEXT_FIELD('Ann'),
    10: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 1 2 3] /Contents <3000> >>',
    11: { dict: '/Type /XObject /Subtype /Form /BBox [0 0 200 20]', data: 'BT /Helv 12 Tf 2 5 Td (Ann) Tj ET' },
    12: { dict: '/Type /Metadata /Subtype /XML', data: XMP },
    13: '<< /Type /StructTreeRoot /K 14 0 R /ParentTree << /Nums [] >> /ParentTreeNextKey 0 >>',
    14: '<< /Type /StructElem /S /Document /P 13 0 R /K [] >>',
    15: '<< /Dests 16 0 R >>',
    16: '<< /Names [(intro) [3 0 R /Fit]] >>',
    17: "<< /Producer (hand) /ModDate (D:20260101000000+00'00') >>",
    ...overrides,
  };
  return firstRevision(Object.entries(objects).map(([n, b]) => [Number(n), b]), '/Root 1 0 R /Info 17 0 R');
}

const base = signedRevision();

function after(pdf: Uint8Array, ...updates: [number, Body][][]): { pdf: Uint8Array; report: ModificationReport } {
  let out = pdf;
  for (const u of updates) out = appendRevision(out, u);
  return { pdf: out, report: analyseChanges(out, pdf.length) };
}

const level = (...updates: [number, Body][][]) => after(base, ...updates).report.level;

describe('the classes of what real tools write after a signature', () => {
  it('nothing after the signed revision: none', () => {
    expect(analyseChanges(base, base.length)).toEqual({ level: 'none', changes: [], changesTotal: 0 });
  });

  it('a new ModDate and Producer in /Info, in place or in a new /Info: dss_and_timestamps, not listed', () => {
    expect(after(base, [[17, "<< /Producer (Acrobat) /ModDate (D:20270101000000+00'00') >>"]]).report).toEqual({ level: 'dss_and_timestamps', changes: [], changesTotal: 0 });
    const moved = appendRevision(base, [[18, "<< /Producer (iText) /ModDate (D:20270101000000+00'00') >>"]], { trailer: { Info: '18 0 R' } });
    expect(analyseChanges(moved, base.length).level).toBe('dss_and_timestamps');
  });

  it('XMP /Metadata updated in place or replaced: dss_and_timestamps', () => {
    expect(level([[12, { dict: '/Type /Metadata /Subtype /XML', data: XMP.replace('<rdf:RDF', '<rdf:RDF about=""') }]])).toBe('dss_and_timestamps');
    expect(level([[1, CATALOG.replace('/Metadata 12 0 R', '/Metadata 18 0 R')], [18, { dict: '/Type /Metadata /Subtype /XML', data: XMP }]])).toBe('dss_and_timestamps');
  });

  it('a /DSS added (LT), then replaced by a newer one by another tool: dss_and_timestamps from either revision', () => {
    const lt = appendRevision(base, [[1, CATALOG.replace(' >>', ' /DSS 18 0 R /Extensions << /ESIC << /BaseVersion /1.7 /ExtensionLevel 5 >> >> >>')], [18, '<< /Type /DSS /Certs [19 0 R] /VRI << /ABCD << /Cert [19 0 R] >> >> >>'], [19, { dict: '', data: '0\x82' }]]);
    const lta = appendRevision(lt, [[1, CATALOG.replace(' >>', ' /DSS 20 0 R >>')], [20, '<< /Type /DSS /Certs [19 0 R 21 0 R] /OCSPs [22 0 R] >>'], [21, { dict: '', data: '0\x83' }], [22, { dict: '', data: '0\x84' }]]);
    expect(analyseChanges(lta, base.length)).toEqual({ level: 'dss_and_timestamps', changes: [], changesTotal: 0 });
    expect(analyseChanges(lta, lt.length).level).toBe('dss_and_timestamps');
  });

  it('a new AcroForm /DR with its fonts and /DA: signing_and_forms, the fonts not counted as annotations', () => {
    const { report } = after(base, [[7, '<< /Fields [8 0 R 9 0 R] /SigFlags 3 /DR << /Font << /Helv 18 0 R /ZaDb 19 0 R >> >> /DA (/Helv 0 Tf 0 g) >>'], [18, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'], [19, '<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>']]);
    expect(report.level).toBe('signing_and_forms');
    expect(report.changes).toEqual(['the AcroForm: signing and forms', 'object 18 (Type1): signing and forms', 'object 19 (Type1): signing and forms']);
  });

  it('a field filled: its value and a new appearance stream, and the old appearance rewritten in place: signing_and_forms', () => {
    expect(level([[9, TEXT_FIELD('Bob', 18)], [18, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /Helv 19 0 R >> >>', data: '(Bob) Tj' }], [19, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']])).toBe('signing_and_forms');
    expect(level([[9, TEXT_FIELD('Bob')], [11, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 200 20]', data: '(Bob) Tj' }]])).toBe('signing_and_forms');
  });

  it('an annotation added with its appearance: annotations; one removed: annotations; a widget removed: other', () => {
    const { report } = after(base, [[3, PAGE.replace('9 0 R]', '9 0 R 18 0 R]')], [18, '<< /Type /Annot /Subtype /Square /Rect [10 10 50 50] /AP << /N 19 0 R >> >>'], [19, { dict: '/Subtype /Form /BBox [0 0 40 40]', data: '0 0 40 40 re S' }]]);
    expect(report).toEqual({ level: 'annotations', changes: ['page object 3: annotations', 'object 18 (Square annotation): annotations', 'object 19 (Form): annotations'], changesTotal: 3 });
    const annotated = appendRevision(base, [[3, PAGE.replace('9 0 R]', '9 0 R 18 0 R]')], [18, '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (note) >>']]);
    expect(after(annotated, [[3, PAGE]]).report.level).toBe('annotations');
    const widgetGone = after(base, [[3, PAGE.replace('8 0 R ', '')]]).report;
    expect(widgetGone.level).toBe('other');
    expect(widgetGone.changes).toContain('page object 3: /Annots: object 8 removed');
  });

  it('a catalog value re-encoded but unchanged (literal, hex, UTF-16): none', () => {
    expect(after(base, [[1, CATALOG.replace('(en-GB)', '<656E2D4742>')]]).report).toEqual({ level: 'none', changes: [], changesTotal: 0 });
    expect(level([[1, CATALOG.replace('(en-GB)', '<FEFF0065006E002D00470042>')]])).toBe('none');
    expect(level([[1, CATALOG.replace('(en-GB)', '(en-US)')]])).toBe('other');
  });

  it('/Names and structure-tree updates (a StructElem and the parent tree for a new field): signing_and_forms', () => {
    expect(level(
      [[16, '<< /Names [(intro) [3 0 R /Fit] (sign-here) [3 0 R /XYZ 0 100 0]] >>']],
      [[13, '<< /Type /StructTreeRoot /K 14 0 R /ParentTree << /Nums [0 18 0 R] >> /ParentTreeNextKey 1 >>'], [14, '<< /Type /StructElem /S /Document /P 13 0 R /K [18 0 R] >>'], [18, '<< /Type /StructElem /S /Form /P 14 0 R /Pg 3 0 R /K << /Type /OBJR /Obj 9 0 R >> >>']],
    )).toBe('signing_and_forms');
  });

  it('/Names gaining /JavaScript: other', () => {
    const { report } = after(base, [[15, '<< /Dests 16 0 R /JavaScript 18 0 R >>'], [18, '<< /Names [(x) 19 0 R] >>'], [19, '<< /S /JavaScript /JS (app.alert(1)) >>']]);
    expect(report.level).toBe('other');
  });

  it('a later locking signature field with its /Lock dictionary: signing_and_forms', () => {
    expect(level([
      [7, '<< /Fields [8 0 R 9 0 R 18 0 R] /SigFlags 3 >>'],
      [3, PAGE.replace('9 0 R]', '9 0 R 18 0 R]')],
      [18, '<< /FT /Sig /T (Approval) /Lock 19 0 R /SV << /Type /SV /Ff 1 >> /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>'],
      [19, '<< /Type /SigFieldLock /Action /All >>'],
    ])).toBe('signing_and_forms');
  });

  it('a document timestamp (invisible field, /DocTimeStamp, empty appearance): dss_and_timestamps; visible: signing_and_forms', () => {
    const dts = (rect: string): [number, Body][] => [
      [7, '<< /Fields [8 0 R 9 0 R 18 0 R] /SigFlags 3 >>'],
      [3, PAGE.replace('9 0 R]', '9 0 R 18 0 R]')],
      [18, `<< /FT /Sig /T (Timestamp) /V 19 0 R /Type /Annot /Subtype /Widget /Rect ${rect} /F 132 /P 3 0 R /AP << /N 20 0 R >> >>`],
      [19, '<< /Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange [0 1 2 3] /Contents <3000> >>'],
      [20, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 0 0]', data: '' }],
    ];
    expect(after(base, dts('[0 0 0 0]')).report).toEqual({ level: 'dss_and_timestamps', changes: [], changesTotal: 0 });
    expect(level(dts('[10 10 100 40]'))).toBe('signing_and_forms');
  });

  it('a new signature field, signed: signing_and_forms; empty and drawn on the page: annotations; empty and invisible: signing_and_forms', () => {
    const field = (v: string, rect: string): [number, Body][] => [
      [7, '<< /Fields [8 0 R 9 0 R 18 0 R] /SigFlags 3 >>'],
      [3, PAGE.replace('9 0 R]', '9 0 R 18 0 R]')],
      [18, `<< /FT /Sig /T (Second) ${v} /Type /Annot /Subtype /Widget /Rect ${rect} /F 4 /P 3 0 R >>`],
      [19, '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 1 2 3] /Contents <3000> >>'],
    ];
    expect(level(field('/V 19 0 R', '[72 100 272 160]'))).toBe('signing_and_forms');
    expect(level(field('', '[72 100 272 160]'))).toBe('annotations');
    expect(level(field('', '[0 0 0 0]'))).toBe('signing_and_forms');
  });
});

describe('what no permission allows: other', () => {
  it('a new form field that is not a signature field', () => {
    const { report } = after(base, [[7, '<< /Fields [8 0 R 9 0 R 18 0 R] /SigFlags 3 >>'], [18, '<< /FT /Tx /T (extra) /V (x) /Type /Annot /Subtype /Widget /Rect [0 0 10 10] /P 3 0 R >>']]);
    expect(report.level).toBe('other');
    expect(report.changes).toContain("field 'extra' (object 18) added: a form field of type /Tx, not a signature field");
  });

  it('/Fields replaced (a field left out)', () => {
    const { report } = after(base, [[7, '<< /Fields [8 0 R] /SigFlags 3 >>']]);
    expect(report.level).toBe('other');
    expect(report.changes).toContain('the AcroForm: /Fields: object 9 removed');
  });

  it('a signed field changed, or its signature dictionary rewritten', () => {
    const moved = after(base, [[8, SIGNED_FIELD.replace('[0 0 0 0]', '[72 100 272 160]')]]).report;
    expect(moved.level).toBe('other');
    expect(moved.changes).toEqual(["signed field 'Signature1' (object 8): /Rect changed"]);
    const rewritten = after(base, [[10, '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /Reason (changed) /ByteRange [0 1 2 3] /Contents <3000> >>']]).report;
    expect(rewritten.level).toBe('other');
    expect(rewritten.changes).toEqual(["object 10 (Sig) changed: the signature of field 'Signature1' (/Reason changed)"]);
  });

  it('page content: the content stream rewritten, /Contents pointed elsewhere, the font or XObject a page draws changed', () => {
    const content = after(base, [[4, { dict: '', data: 'BT /F1 12 Tf 72 700 Td (Amount: 999 EUR) Tj ET' }]]).report;
    expect(content).toMatchObject({ level: 'other', changes: ["object 4 changed: content or resources a page draws"] });
    expect(after(base, [[3, PAGE.replace('/Contents 4 0 R', '/Contents 18 0 R')], [18, { dict: '', data: '' }]]).report.changes).toContain('page object 3: /Contents changed');
    expect(level([[5, '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>']])).toBe('other');
    expect(level([[6, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842]', data: '' }]])).toBe('other');
  });

  it('pages added or removed', () => {
    const added = after(base, [[2, '<< /Type /Pages /Kids [3 0 R 18 0 R] /Count 2 >>'], [18, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>']]).report;
    expect(added.level).toBe('other');
    expect(added.changes).toContain('object 2 (Pages) changed: the page tree (pages added, removed or reordered)');
  });

  it('an object redirected by the cross-reference data to bytes inside the signed revision', () => {
    // The "hide" attack's xref-only update: object 6 (what covers the text) pointed at an empty stream the signer never saw used.
    const planted = signedRevision({ 18: { dict: '/Type /XObject /Subtype /Form /BBox [0 0 1 1]', data: '' } });
    const pdf = appendRevision(planted, [], { redirect: { 6: offsetOf(planted, 18) } });
    const report = analyseChanges(pdf, planted.length);
    expect(report.level).toBe('other');
    expect(report.changes).toEqual([`object 6 redirected by the cross-reference data to byte ${offsetOf(planted, 18)}, inside the signed revision`]);
  });

  it('an object shared by a widget appearance and the page content, rewritten with a form fill ("hide")', () => {
    const shared = signedRevision({ 9: TEXT_FIELD('Ann', 6) });
    const report = analyseChanges(appendRevision(shared, [[9, TEXT_FIELD('Bob', 6)], [6, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842]', data: '' }]]), shared.length);
    expect(report.level).toBe('other');
    expect(report.changes).toContain('object 6 (Form) changed: content or resources a page draws');
  });

  it('a font shared by the AcroForm /DR and a page, rewritten: other; one the /DR alone uses: signing_and_forms', () => {
    const drShared = signedRevision({ 7: '<< /Fields [8 0 R 9 0 R] /SigFlags 3 /DR << /Font << /Helv 5 0 R >> >> >>' });
    expect(analyseChanges(appendRevision(drShared, [[5, '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>']]), drShared.length).level).toBe('other');
    const drOwn = signedRevision({ 7: '<< /Fields [8 0 R 9 0 R] /SigFlags 3 /DR << /Font << /Helv 18 0 R >> >> >>', 18: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' });
    expect(analyseChanges(appendRevision(drOwn, [[18, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>']]), drOwn.length).level).toBe('signing_and_forms');
  });

  it('a reference the signed revision left dangling, defined later ("replace")', () => {
    const dangling = signedRevision({ 3: PAGE.replace('/Fm0 6 0 R', '/Fm0 6 0 R /Fm1 30 0 R') });
    const report = analyseChanges(appendRevision(dangling, [[30, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842]', data: 'BT /F1 12 Tf 72 650 Td (Amount: 999 EUR) Tj ET' }]]), dangling.length);
    expect(report).toMatchObject({ level: 'other', changes: ['object 30 (Form) added: content or resources a page draws'] });
  });

  it('an object the document no longer reaches rewritten; a used object freed', () => {
    const orphan = signedRevision({ 18: '<< /Unused true >>' });
    expect(analyseChanges(appendRevision(orphan, [[18, '<< /Unused false >>']]), orphan.length).changes).toEqual(['object 18 changed and is not reachable from the catalog']);
    const freed = appendRevision(base, [], { free: [5] });
    expect(analyseChanges(freed, base.length)).toMatchObject({ level: 'other', changes: ['object 5 (Type1) removed: content or resources a page draws'] });
  });

  it('/Encrypt added to the trailer', () => {
    const pdf = appendRevision(base, [[18, '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>']], { trailer: { Encrypt: '18 0 R' } });
    expect(analyseChanges(pdf, base.length).changes).toContain('the trailer: /Encrypt changed');
  });
});

describe('what is no change at all', () => {
  it('objects written again unchanged, new objects nothing uses, unused objects freed: none', () => {
    expect(level([[5, '<< /BaseFont /Helvetica /Subtype /Type1 /Type /Font >>'], [9, TEXT_FIELD('Ann').replace('(Ann)', '<416E6E>')]])).toBe('none');
    expect(level([[18, '<< /Orphan true >>']])).toBe('none');
    const orphan = signedRevision({ 18: '<< /Unused true >>' });
    expect(analyseChanges(appendRevision(orphan, [], { free: [18] }), orphan.length).level).toBe('none');
  });
});

describe('DocMDP (ISO 32000-1 Table 254) over the classes', () => {
  it.each([
    ['none', [true, true, true, true]],
    ['dss_and_timestamps', [true, true, true, true]],
    ['signing_and_forms', [true, false, true, true]],
    ['annotations', [true, false, false, true]],
    ['other', [false, false, false, false]],
  ] as const)('%s: allowed without certification, by P=1, P=2, P=3: %j', (cls, allowed) => {
    expect([changesAllowed(cls, null), changesAllowed(cls, 1), changesAllowed(cls, 2), changesAllowed(cls, 3)]).toEqual(allowed);
  });
});

describe('bounds (issue 15)', () => {
  it(`more than ${MAX_CHANGED_OBJECTS} objects changed: other, not examined one by one; each revision analysed once`, () => {
    const many: [number, Body][] = Array.from({ length: MAX_CHANGED_OBJECTS + 1 }, (_, i) => [18 + i, '<< >>']);
    const pdf = appendRevision(base, many);
    const analysis = new ChangeAnalysis(new PdfReader(pdf));
    const first = analysis.analyse(base.length);
    expect(first).toEqual({ level: 'other', changes: [`more than ${MAX_CHANGED_OBJECTS} objects changed after it: not examined one by one`], changesTotal: 1 });
    expect(analysis.analyse(base.length)).toBe(first);
  });
});
