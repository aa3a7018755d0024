// One whole process of the @signpdf pipeline the issue compares us with (issue 10): read the PDF,
// add a placeholder with pdf-lib (@signpdf/placeholder-pdf-lib), sign it with a P12
// (@signpdf/signer-p12, RSA-2048), write the signed file. `node whole-signpdf.mjs IN OUT P12`.
import { readFileSync, writeFileSync } from 'node:fs';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { P12Signer } from '@signpdf/signer-p12';
import { SignPdf } from '@signpdf/signpdf';
import { PDFDocument } from 'pdf-lib';

const [input, output, p12] = process.argv.slice(2);
const pdfDoc = await PDFDocument.load(readFileSync(input));
pdflibAddPlaceholder({ pdfDoc, reason: 'Benchmark', contactInfo: 'bench@localsign', name: 'Bench Signer', location: 'Here' });
const withPlaceholder = Buffer.from(await pdfDoc.save({ useObjectStreams: false }));
const signed = await new SignPdf().sign(withPlaceholder, new P12Signer(readFileSync(p12)));
writeFileSync(output, signed);
