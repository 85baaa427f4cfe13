import { AddressLease } from '../addresses/address-lease.entity';
import { Flavor, Image, Keypair, Network, SecurityGroup } from '../catalog/catalog.entities';
import { Instance } from '../instances/instance.entity';
import { OutboxEntry } from '../outbox/outbox.entity';
import { ApiKey } from '../projects/api-key.entity';
import { Project } from '../projects/project.entity';

export const ENTITIES = [Project, ApiKey, OutboxEntry, AddressLease, Flavor, Image, Network, Keypair, SecurityGroup, Instance];
