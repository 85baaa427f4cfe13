import { Inject, Injectable } from '@nestjs/common';
import { syncCatalog } from '@stratus/core';
import { CATALOG_DRIVER, CatalogDriver } from '@stratus/providers';
import { DataSource } from 'typeorm';
import { PacketFilterSync } from '../security-groups/packet-filter.sync';

/** Mirrors the provider's catalog into PostgreSQL, where the API reads it. */
@Injectable()
export class CatalogSync {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CATALOG_DRIVER) private readonly driver: CatalogDriver,
    private readonly packetFilter: PacketFilterSync,
  ) {}

  async run(): Promise<void> {
    const snapshot = await this.driver.catalog();
    await this.dataSource.transaction((manager) => syncCatalog(manager, snapshot));
    // A change of a group's rules applies to the instances running with it.
    await this.packetFilter.sync();
  }
}
