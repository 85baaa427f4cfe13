import { createCipheriv, createDecipheriv, createPrivateKey, KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { randomToken, readOrCreateSecret, secretsDir } from '../secrets/secret-file';

export interface ParsedCertificate {
  /** The certificate and its chain, and nothing else the file held (a private key in it would be stored in the clear). */
  chainPem: string;
  subject: string;
  fingerprintSha256: string;
  notAfter: Date;
}

/**
 * Encrypts certificate private keys for storage (AES-256-GCM, a random IV
 * each time) with a key-encryption key kept in DATA_DIR/secrets
 * (mode 0600). The database holds only `v1:<iv>:<tag>:<ciphertext>`; the
 * edge, on the same data folder, decrypts when it loads a route.
 */
export class CertificateVault {
  private constructor(private readonly kek: Buffer) {}

  static fromDataDir(dataDir: string): CertificateVault {
    const encoded = readOrCreateSecret(join(secretsDir(dataDir), 'certificate-kek'), () => randomToken(32));
    return new CertificateVault(Buffer.from(encoded.trim(), 'base64url'));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1') throw new Error('unknown sealed key format');
    const decipher = createDecipheriv('aes-256-gcm', this.kek, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** OpenSSL's default security level (2, as Debian ships it) refuses smaller RSA keys: HAProxy could not load the certificate. */
const RSA_MIN_BITS = 2048;

/** The CERTIFICATE blocks of a PEM text, in order, joined by newlines; anything else in it (keys, parameters) left out. */
export function certificateBlocks(pem: string): string {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).join('\n');
}

/**
 * Checks that the PEMs are a certificate (with its chain) and the private
 * key that belongs to it, one HAProxy can serve; never echoes the key.
 */
export function parseCertificatePair(certPem: string, keyPem: string): ParsedCertificate {
  const chainPem = certificateBlocks(certPem);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(chainPem);
  } catch {
    throw new Error('the certificate file is not a PEM X.509 certificate');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new Error('the key file is not a PEM private key (encrypted keys are not supported)');
  }
  if (!cert.checkPrivateKey(key)) throw new Error('the private key does not belong to the certificate');
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (key.asymmetricKeyType === 'rsa' && bits !== undefined && bits < RSA_MIN_BITS) {
    throw new Error(`the RSA key has ${bits} bits; at least ${RSA_MIN_BITS} are needed`);
  }
  return { chainPem, subject: cert.subject.replace(/\n/g, ', '), fingerprintSha256: cert.fingerprint256, notAfter: new Date(cert.validTo) };
}
