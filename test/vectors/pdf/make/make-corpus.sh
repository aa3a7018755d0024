#!/bin/sh
# Rebuilds every committed corpus PDF in test/vectors/pdf/ with tools on the project machine:
# node (pdf-lib), poppler's pdftocairo, qpdf 11, mupdf-tools 1.21 (mutool), openssl 3.
# Real documents with footers and footnotes (issue 11, stamps that never hide the document):
# LibreOffice 7.4 (Debian libreoffice-writer-nogui) and groff 1.22 (Debian groff, gropdf).
# Usage (from anywhere): sh test/vectors/pdf/make/make-corpus.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

node "$here/hand-written.mjs" "$out"
node "$here/pdf-lib.mjs" "$out"

# mupdf as producer: `mutool create` from a content-stream description, then `mutool clean`
# (garbage-collect, compress streams) over the pdf-lib AcroForm file.
mutool create -o "$out/mutool-create.pdf" "$here/mutool-page.txt"
mutool clean -gggg -z "$out/pdflib-acroform.pdf" "$out/mutool-clean.pdf"

# cairo as producer (poppler renders the pdf-lib file, cairo writes a new PDF).
pdftocairo -pdf "$out/pdflib-xref-table.pdf" "$out/cairo.pdf"

# qpdf rewrites of the cairo file: object streams + xref stream, linearized, and PDF 2.0.
qpdf --object-streams=generate "$out/cairo.pdf" "$out/qpdf-object-streams.pdf"
qpdf --linearize "$out/cairo.pdf" "$out/qpdf-linearized.pdf"
qpdf --force-version=2.0 "$out/mutool-create.pdf" "$out/qpdf-pdf20.pdf"

# Already signed by another tool: mutool fills the empty field of hand-signature-field.pdf with
# an adbe.pkcs7.detached signature. Throwaway key and CA, never committed.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 3650 \
  -subj "/CN=Corpus Other Tool CA" -addext basicConstraints=critical,CA:TRUE \
  -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$tmp/signer.key" -out "$tmp/signer.csr" \
  -subj "/CN=Corpus Other Tool/O=localsign test" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n' > "$tmp/ext.cnf"
openssl x509 -req -in "$tmp/signer.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
  -out "$tmp/signer.pem" -days 3650 -extfile "$tmp/ext.cnf" 2>/dev/null
openssl pkcs12 -export -in "$tmp/signer.pem" -inkey "$tmp/signer.key" -certfile "$tmp/ca.pem" \
  -out "$tmp/signer.p12" -passout pass:corpus
mutool sign -s "$tmp/signer.p12" -P corpus -o "$out/mutool-signed.pdf" "$out/hand-signature-field.pdf" 6

# A LibreOffice Writer document: three A4 pages of justified text, footnotes on pages 1 and 3,
# a centred footer on every page (the default stamp's box lands on page 3's footnote and footer).
soffice --headless --convert-to pdf --outdir "$tmp" "$here/libreoffice-footnotes.fodt" >/dev/null 2>&1
cp "$tmp/libreoffice-footnotes.pdf" "$out/libreoffice-footnotes.pdf"

# A groff manual page (gropdf, standard Type 1 fonts not embedded): header and footer lines.
groff -man -Tpdf "$here/localsign.1" > "$out/groff-man.pdf"

ls -l "$out"/*.pdf
