import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One loopback address of the local provider's pool, held by one resource. */
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
