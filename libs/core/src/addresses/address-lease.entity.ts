import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * One loopback address of the local provider's pool, held by one resource.
 * Only the local provider's network driver reads and writes it
 * (libs/providers/src/local/address-pool.ts); the table is here, with the
 * migrations, as every table is. Elsewhere, the address a resource holds is
 * the one its row says.
 */
@Entity('address_leases')
export class AddressLease {
  @PrimaryColumn({ type: 'inet' })
  address: string;

  @Column({ name: 'resource_kind', type: 'text' })
  resourceKind: string;

  @Column({ name: 'resource_id', type: 'text', unique: true })
  resourceId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
