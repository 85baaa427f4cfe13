import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A TLS certificate for gateway routes, loaded by an operator with the CLI.
 * The private key is stored only encrypted (AES-256-GCM with a key kept in
 * DATA_DIR/secrets), so a database dump alone does not reveal it.
 */
@Entity('certificates')
export class Certificate {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'cert_pem', type: 'text' })
  certPem: string;

  @Column({ name: 'key_encrypted', type: 'text' })
  keyEncrypted: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ name: 'fingerprint_sha256', type: 'text' })
  fingerprintSha256: string;

  @Column({ name: 'not_after', type: 'timestamptz' })
  notAfter: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
