import { generateKeyPairSync, randomBytes, sign as nodeSign } from 'node:crypto';
import { newUuid } from '../config/ids';
import { issueCrl } from '../pki/crl';
import { issueCertificate } from '../pki/issue-certificate';
import { generateSoftKey, toSoftChipRecord, writeSoftChipFile, type SoftChipKeyRecord } from '../chip/soft-chip';
import type { ChipKeyAlgorithm } from '../chip/types';
import { createDefaultDesigns } from './default-designs';
import type { EmbeddedConfig } from './embedded-config';
import { mapKey } from './embedded-config';

const DEMO_ORG = 'localsign demo (not trusted)';
const YEAR_MS = 365 * 24 * 3600 * 1000;

interface DemoKeySpec {
  id: string;
  label: string;
  algorithm: ChipKeyAlgorithm;
}

/** The demo credentials of the embedded default: P-256 and RSA-2048 PAdES, one EVM. */
const DEMO_KEYS: DemoKeySpec[] = [
  { id: '01', label: 'Demo PAdES signer (P-256)', algorithm: 'p256' },
  { id: '02', label: 'Demo PAdES signer (RSA-2048)', algorithm: 'rsa' },
  { id: '03', label: 'Demo EVM wallet', algorithm: 'secp256k1' },
];

/**
 * Creates the software chip with a demo test CA and its signer certificates. The CA's private key
 * is used once here and never stored, so nothing else can be issued under it. Signer certificates
 * carry keyUsage digitalSignature + nonRepudiation and no extended key usage: the profile pdfsig
 * and Adobe accept for document signatures.
 */
export function createDemoSoftChip(chipPath: string, now: Date, crlUrl: string): { records: SoftChipKeyRecord[]; config: Omit<EmbeddedConfig, 'chip'> } {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caSpki = new Uint8Array(ca.publicKey.export({ type: 'spki', format: 'der' }));
  const caName = { CN: 'localsign Demo Root CA', O: DEMO_ORG };
  const signWithCa = (tbs: Uint8Array) => new Uint8Array(nodeSign('sha256', tbs, ca.privateKey));
  const serial = () => {
    const s = randomBytes(16);
    s[0] = (s[0]! & 0x7f) | 0x01; // positive, no leading zero byte (RFC 5280 §4.1.2.2)
    return new Uint8Array(s);
  };
  const notBefore = new Date(now.getTime() - 3600 * 1000);
  const caCert = issueCertificate({
    subject: caName,
    issuer: 'self',
    subjectPublicKey: caSpki,
    serial: serial(),
    notBefore,
    notAfter: new Date(now.getTime() + 10 * YEAR_MS),
    ca: true,
    issuerAlgorithm: 'p256',
    sign: signWithCa,
  });

  const records: SoftChipKeyRecord[] = [];
  const credentials: EmbeddedConfig['credentials'] = {};
  for (const spec of DEMO_KEYS) {
    const key = generateSoftKey(spec.algorithm);
    let certificate: Uint8Array | null = null;
    if (spec.algorithm !== 'secp256k1') {
      certificate = issueCertificate({
        subject: { CN: spec.label.replace('Demo PAdES signer', 'Demo Signer'), O: DEMO_ORG },
        issuer: caName,
        subjectPublicKey: key.publicKey,
        serial: serial(),
        notBefore,
        notAfter: new Date(now.getTime() + 3 * YEAR_MS),
        ca: false,
        issuerAlgorithm: 'p256',
        sign: signWithCa,
        issuerCertificate: caCert,
        crlUrls: [crlUrl],
      });
    }
    records.push(
      toSoftChipRecord({
        id: spec.id,
        label: spec.label,
        algorithm: spec.algorithm,
        privateKey: key.privateKey,
        certificate,
        chain: certificate ? [caCert] : [],
      }),
    );
    credentials[mapKey(spec)] = { credential_key: newUuid(), name: spec.label, algorithm: spec.algorithm };
  }
  writeSoftChipFile(chipPath, { keys: records });
  // One CRL for the CA's whole life, signed now: the key is dropped after this function, and an
  // empty CRL valid until the CA expires is the truth for a CA that can issue nothing more.
  const crl = issueCrl({
    issuerCertificate: caCert,
    issuerAlgorithm: 'p256',
    thisUpdate: notBefore,
    nextUpdate: new Date(now.getTime() + 10 * YEAR_MS),
    crlNumber: 1,
    sign: signWithCa,
  });
  const { designs, defaultKey } = createDefaultDesigns();
  return { records, config: { credentials, default_design_key: defaultKey, designs, demo_crl: { url: crlUrl, der_base64: Buffer.from(crl).toString('base64') } } };
}
