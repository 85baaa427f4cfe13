// Generated from the OpenAPI document by `npm run openapi:types`; do not edit.
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process answers */
    get: operations['Health_health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: PostgreSQL and Redis answer; a 503 names the ones that do not */
    get: operations['Health_ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flavors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Compute sizes, {items, next_cursor} */
    get: operations['Catalog_flavors'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/security_groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Security groups with their rules, {items, next_cursor} */
    get: operations['Catalog_securityGroups'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/images': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Images that instances boot from (image_id): the provider's and the project's own snapshots */
    get: operations['Catalog_images'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/networks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Private networks (network_id) */
    get: operations['Catalog_networks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/keypairs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** SSH keypairs (keypair_name) */
    get: operations['Catalog_keypairs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/instances': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's instances, newest first, a page at a time; ?wait= long-polls for a change */
    get: operations['Instances_list'];
    put?: never;
    /** Create an instance; it boots asynchronously (poll the list until ACTIVE) */
    post: operations['Instances_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/instances/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One instance, with the fields of its create; ?wait= long-polls for a change */
    get: operations['Instances_get'];
    put?: never;
    post?: never;
    /** Delete an instance; it is DELETING until it is gone */
    delete: operations['Instances_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/volumes/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a volume (size in GiB); it is `creating` until the provider has made it, then `available` */
    post: operations['Volumes_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/volumes/list': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's volumes, newest first, a page at a time; ?wait= long-polls for a change */
    get: operations['Volumes_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/volumes/delete/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Delete a volume that is not attached */
    delete: operations['Volumes_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/volumes/attach': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Attach to an instance; the result carries the attachment id that detach takes */
    post: operations['Volumes_attach'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/volumes/detach': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Detach from its instance; the volume is available again */
    post: operations['Volumes_detach'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/gateway/available-port': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A port of the gateway range that no route uses and that can be bound now */
    get: operations['Gateway_availablePort'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/gateway/used-ports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Ports of the gateway held by your project's routes (available-port avoids every project's) */
    get: operations['Gateway_usedPorts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/gateway/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The edge: reachable or not, listeners expected versus bound */
    get: operations['Gateway_health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/gateway/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a TCP route; answers once the edge has bound the listener */
    post: operations['Gateway_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/gateway/routes/{port}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Delete the route on a port; its listener closes (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH; with a token, only your own) */
    delete: operations['Gateway_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/dns/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a proxy host: a name the edge routes to a port of one of your instances */
    post: operations['Dns_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/dns/update-dns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Merge string values into an instance's metadata (as GET /v1/instances shows it) */
    post: operations['Dns_updateDns'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/dns/list': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Proxy hosts: with a token your project's; without one (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH) every project's */
    get: operations['Dns_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/dns/proxy-hosts/{proxyHostId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One proxy host (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH; with a token, only your own) */
    get: operations['Dns_get'];
    /** Change forwardPort and/or domain (body: {updateData: {...}}) */
    put: operations['Dns_update'];
    post?: never;
    /** Delete a proxy host; the edge stops serving its name */
    delete: operations['Dns_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/databases': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change */
    get: operations['Databases_list'];
    put?: never;
    /** Create a PostgreSQL database server */
    post: operations['Databases_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/databases/{id}/reset-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new password for a ready server, returned once
     * @description Answers once the server holds the newly generated password and refuses the old one (or, should the server take longer than DATABASE_PASSWORD_RESET_WAIT_MS, with the password it is about to take). Sessions opened with the old password stay open on PostgreSQL, MariaDB and MySQL; Redis and ClickHouse restart to take it, which ends their open connections.
     */
    post: operations['Databases_resetPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/databases/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One server of this kind (no password); ?wait= long-polls for a change, as for ready */
    get: operations['Databases_get'];
    put?: never;
    post?: never;
    /** Delete a server of this kind */
    delete: operations['Databases_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cache': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change */
    get: operations['Cache_list'];
    put?: never;
    /** Create a Redis cache server */
    post: operations['Cache_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cache/{id}/reset-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new password for a ready server, returned once
     * @description Answers once the server holds the newly generated password and refuses the old one (or, should the server take longer than DATABASE_PASSWORD_RESET_WAIT_MS, with the password it is about to take). Sessions opened with the old password stay open on PostgreSQL, MariaDB and MySQL; Redis and ClickHouse restart to take it, which ends their open connections.
     */
    post: operations['Cache_resetPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cache/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One server of this kind (no password); ?wait= long-polls for a change, as for ready */
    get: operations['Cache_get'];
    put?: never;
    post?: never;
    /** Delete a server of this kind */
    delete: operations['Cache_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/relational-databases': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change */
    get: operations['RelationalDatabases_list'];
    put?: never;
    /** Create a MariaDB or MySQL database server */
    post: operations['RelationalDatabases_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/relational-databases/{id}/reset-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new password for a ready server, returned once
     * @description Answers once the server holds the newly generated password and refuses the old one (or, should the server take longer than DATABASE_PASSWORD_RESET_WAIT_MS, with the password it is about to take). Sessions opened with the old password stay open on PostgreSQL, MariaDB and MySQL; Redis and ClickHouse restart to take it, which ends their open connections.
     */
    post: operations['RelationalDatabases_resetPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/relational-databases/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One server of this kind (no password); ?wait= long-polls for a change, as for ready */
    get: operations['RelationalDatabases_get'];
    put?: never;
    post?: never;
    /** Delete a server of this kind */
    delete: operations['RelationalDatabases_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/analytics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change */
    get: operations['Analytics_list'];
    put?: never;
    /** Create a ClickHouse analytics server (HTTP) */
    post: operations['Analytics_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/analytics/{id}/reset-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new password for a ready server, returned once
     * @description Answers once the server holds the newly generated password and refuses the old one (or, should the server take longer than DATABASE_PASSWORD_RESET_WAIT_MS, with the password it is about to take). Sessions opened with the old password stay open on PostgreSQL, MariaDB and MySQL; Redis and ClickHouse restart to take it, which ends their open connections.
     */
    post: operations['Analytics_resetPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/analytics/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One server of this kind (no password); ?wait= long-polls for a change, as for ready */
    get: operations['Analytics_get'];
    put?: never;
    post?: never;
    /** Delete a server of this kind */
    delete: operations['Analytics_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/clusters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's clusters, newest first, a page at a time, with build progress, members, balancer, events and placement */
    get: operations['Clusters_list'];
    put?: never;
    /** Create a cluster: members built one at a time behind a load balancer (poll the list until CREATE_COMPLETE) */
    post: operations['Clusters_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/clusters/from-instance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Make a cluster of a running instance, keeping its URL (poll the list until CREATE_COMPLETE)
     * @description The instance becomes the first member as it runs: not rebuilt, not restarted. The other members boot from a snapshot image of it (its files, what its image runs at boot; not its user_data or the platform's files), which is the cluster's `image_id` and an image of your project only (GET /v1/images). Once the instance passes the balancer's health check, its URL moves to the balancer, so it answers throughout: its proxy hosts that forward to its port (their `clusterId` is then the cluster's, `instanceId` null) and its gateway routes to that port (their targetIp the balancer's address). Deleting the cluster deletes every member, this instance included, and with it those proxy hosts, routes and the snapshot image. A build that fails leaves the instance running as a member behind the balancer, its URL still answering.
     */
    post: operations['Clusters_createFromInstance'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/clusters/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One cluster */
    get: operations['Clusters_get'];
    /** Update a cluster (fields left out keep their values): sizes and thresholds at once; a new image, flavor, key_name or user_data replaces the members one at a time, each new one serving before an old one drains. Poll until UPDATE_COMPLETE (or UPDATE_FAILED, with the reason) */
    put: operations['Clusters_update'];
    post?: never;
    /**
     * Delete a cluster: DELETE_IN_PROGRESS while its members are drained and removed, then its balancer; it leaves the list when gone
     * @description Every member goes. A cluster made from an instance (`source_instance_id`) takes that instance with it, and the proxy hosts and gateway routes that moved to it, and its snapshot image.
     */
    delete: operations['Clusters_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/jwks.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Public keys of the embedded identity provider (empty when an external one is configured) */
    get: operations['Auth_keys'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/cloud/auth/whoami': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project and user a bearer token grants */
    get: operations['Auth_whoami'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    LiveView: {
      /** @enum {string} */
      status: 'ok';
    };
    ReadyView: {
      /** @enum {string} */
      status: 'ready';
    };
    FlavorView: {
      id: string;
      name: string;
      vcpus: number;
      ram_mb: number;
      disk_gb: number;
    };
    FlavorPage: {
      items: components['schemas']['FlavorView'][];
      /** @description pass as ?cursor= for the next page; null on the last */
      next_cursor: string | null;
    };
    SecurityGroupRuleView: {
      id: string;
      /** @enum {string} */
      direction: 'ingress' | 'egress';
      /** @enum {string} */
      protocol: 'tcp' | 'udp' | 'icmp' | 'all';
      /** @description single-port rules only */
      port?: number;
      /** @description absent: egress to anywhere, ingress from the same network */
      cidr?: string;
      /** @description the peer must be a member of this group; instead of a cidr */
      remote_group_id?: string;
    };
    SecurityGroupView: {
      id: string;
      name: string;
      description: string;
      rules: components['schemas']['SecurityGroupRuleView'][];
    };
    SecurityGroupPage: {
      items: components['schemas']['SecurityGroupView'][];
      /** @description pass as ?cursor= for the next page; null on the last */
      next_cursor: string | null;
    };
    ImageView: {
      id: string;
      name: string;
      description: string;
      /**
       * @description public: the provider's, for every project; private: a snapshot of one of this project's instances, for it alone
       * @enum {string}
       */
      visibility: 'public' | 'private';
    };
    ImagePage: {
      items: components['schemas']['ImageView'][];
      /** @description pass as ?cursor= for the next page; null on the last */
      next_cursor: string | null;
    };
    NetworkView: {
      id: string;
      name: string;
      /** @example 10.0.0.0/24 */
      cidr: string;
    };
    NetworkPage: {
      items: components['schemas']['NetworkView'][];
      /** @description pass as ?cursor= for the next page; null on the last */
      next_cursor: string | null;
    };
    KeypairView: {
      name: string;
      fingerprint: string;
    };
    KeypairPage: {
      items: components['schemas']['KeypairView'][];
      /** @description pass as ?cursor= for the next page; null on the last */
      next_cursor: string | null;
    };
    InstanceVolumeDto: {
      name: string;
      /** @description GB */
      size: number;
    };
    CreateInstanceDto: {
      name: string;
      /** @description from GET /v1/images */
      image_id: string;
      /** @description flavor id or name, from GET /v1/flavors */
      flavor_id: string;
      /** @description from GET /v1/networks */
      network_id: string;
      /** @description from GET /v1/keypairs */
      keypair_name: string;
      security_group_ids?: string[];
      security_group_names?: string[];
      volume?: components['schemas']['InstanceVolumeDto'];
      /** @default 3000 */
      port?: string | number;
      /** @description subdomain prefix (without the domain suffix) */
      dname?: string;
      /** @description shell script run at first boot */
      user_data?: string;
      imageName?: string;
    };
    InstanceCreatedView: {
      id: string;
      name: string;
      /** @enum {string} */
      status: 'building';
      image_id: string;
      flavor_id: string;
      network_id: string;
      /** Format: date-time */
      created_at: string;
    };
    InstanceListItemView: {
      id: string;
      name: string;
      /**
       * @description DELETING once a delete has started, until the instance leaves the list
       * @enum {string}
       */
      status: 'BUILD' | 'ACTIVE' | 'SHUTOFF' | 'ERROR' | 'DELETING';
      /** @enum {string} */
      state: 'active' | 'stopped' | 'provisioning';
      image_id: string;
      flavor_id: string;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      updated: string;
      /** @description string values: isPublic, enableSSH, floatingIp (when assigned), domain names, and what update-dns merged in */
      metadata: {
        [key: string]: string;
      };
      user_id: string;
      project_id: string;
      status_reason: string | null;
    };
    InstanceDetailView: {
      id: string;
      name: string;
      /**
       * @description DELETING once a delete has started, until the instance leaves the list
       * @enum {string}
       */
      status: 'BUILD' | 'ACTIVE' | 'SHUTOFF' | 'ERROR' | 'DELETING';
      /** @enum {string} */
      state: 'active' | 'stopped' | 'provisioning';
      image_id: string;
      flavor_id: string;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      updated: string;
      /** @description string values: isPublic, enableSSH, floatingIp (when assigned), domain names, and what update-dns merged in */
      metadata: {
        [key: string]: string;
      };
      user_id: string;
      project_id: string;
      status_reason: string | null;
      network_id: string;
      keypair_name: string;
      security_group_ids: string[];
      /** @example 3000 */
      port: string;
      dname: string | null;
      image_name: string | null;
      /** @description private address; null until one is assigned */
      address: string | null;
    };
    CreateVolumeDto: {
      name: string;
      /** @description GiB */
      size: number;
      description?: string;
    };
    VolumeAttachmentView: {
      attachment_id: string;
      instance_id: string;
      /** @description where the volume appears on the instance */
      mountpoint: string;
      /** Format: date-time */
      attached_at: string | null;
    };
    VolumeView: {
      id: string;
      name: string;
      description: string | null;
      /** @description GiB */
      size: number;
      /** @enum {string} */
      status: 'creating' | 'available' | 'attaching' | 'in-use' | 'detaching' | 'deleting' | 'error';
      /** @description why the volume is in error */
      status_reason: string | null;
      /** @description empty, or the one attachment */
      attachments: components['schemas']['VolumeAttachmentView'][];
      project_id: string;
      user_id: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    MessageView: {
      /** @example Volume deleted successfully */
      message: string;
    };
    AttachVolumeDto: {
      volume_id: string;
      instance_id: string;
    };
    VolumeAttachmentResultView: {
      /** @description null only once a detach has cleared it */
      attachment_id: string | null;
      volume_id: string;
      instance_id: string | null;
      /** @enum {string} */
      status: 'creating' | 'available' | 'attaching' | 'in-use' | 'detaching' | 'deleting' | 'error';
      mountpoint: string;
    };
    DetachVolumeDto: {
      /** @description from the attach result or the volume's attachments */
      attachment_id: string;
      volume_id: string;
    };
    AvailablePortView: {
      port: number;
      /** @description where the gateway listens */
      host: string;
    };
    UsedPortsView: {
      ports: number[];
      count: number;
    };
    EdgeView: {
      name: string;
      threads: number;
      /** Format: date-time */
      started_at: string;
      /**
       * Format: date-time
       * @description its last heartbeat
       */
      last_seen: string;
    };
    ListenersView: {
      /** @description the caller's routes */
      expected: number;
      bound: number;
      /** @description ports of routes not bound */
      missing: number[];
      /** @description why a port could not be bound, by port */
      errors: {
        [key: string]: string;
      };
    };
    HttpListenerView: {
      host: string;
      port: number;
      bound: boolean;
    };
    PortRangeView: {
      from: number;
      to: number;
      /** @description the gateway's HAProxy holds the range */
      held: boolean;
      /** @description ports of the range another process holds */
      taken: number[];
    };
    GatewayHealthView: {
      /** @enum {string} */
      status: 'ok' | 'degraded' | 'down';
      /** @description null when no edge is running (and on OpenStack, whose load balancers are the cloud's) */
      edge: components['schemas']['EdgeView'] | null;
      listeners: components['schemas']['ListenersView'];
      http_listener: components['schemas']['HttpListenerView'];
      port_range: components['schemas']['PortRangeView'];
      /** Format: date-time */
      checked_at: string;
    };
    CreateGatewayRouteDto: {
      /** @description address traffic is forwarded to; must be inside the allowed networks (the instance networks by default) */
      targetIp: string;
      targetPort: number;
      /** @enum {string} */
      protocol: 'tcp';
      /** @description listening port on the gateway, inside GATEWAY_PORT_RANGE (see available-port) */
      port: number;
      /** @description id of a certificate loaded with `npm run cli -- certificate:add`; the route then terminates TLS */
      certificate_id?: number;
    };
    GatewayRouteView: {
      id: string;
      /** @description listening port on the gateway */
      port: number;
      /** @enum {string} */
      protocol: 'tcp';
      targetIp: string;
      targetPort: number;
      certificate_id: number | null;
      /** @description the route terminates TLS (it has a certificate) */
      tls: boolean;
      /** @description where the gateway listens */
      host: string;
      /**
       * @description active once the edge has bound the listener
       * @enum {string}
       */
      status: 'active' | 'pending';
      project_id: string;
      /** Format: date-time */
      created_at: string;
    };
    RouteDeletedView: {
      /** @example Volume deleted successfully */
      message: string;
      port: number;
    };
    CreateProxyHostDto: {
      instanceId: string;
      /** @description port on the instance */
      forwardPort: number;
      /** @description a name under the domain suffix, or a bare label that gets it; omitted: <uuid>.<suffix> */
      domain?: string;
    };
    ProxyHostView: {
      id: string;
      /** @description the public name */
      domain: string;
      /** @description the instance it forwards to; null once it moved to a cluster (`clusterId`) */
      instanceId: string | null;
      /** @description the cluster whose load balancer it forwards to (it moved there when the cluster was made from its instance, POST /v1/clusters/from-instance); null for an instance's */
      clusterId: string | null;
      forwardPort: number;
      /** @description where the edge serves it */
      url: string;
      project_id: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    UpdateDnsDto: {
      instanceId: string;
      metadata: {
        [key: string]: string;
      };
    };
    MetadataMergedView: {
      instance_id: string;
      metadata: {
        [key: string]: string;
      };
    };
    ProxyHostUpdateFields: {
      forwardPort?: number;
      /** @description a new name under the domain suffix */
      domain?: string;
    };
    UpdateProxyHostDto: {
      /** @description the fields to change: forwardPort, domain */
      updateData: components['schemas']['ProxyHostUpdateFields'];
    };
    CreateDatabaseDto: {
      /**
       * @description lowercase letters and hyphens
       * @example orders-db
       */
      name: string;
      /** @description server size, from GET /v1/flavors (id or name) */
      flavor_id: string;
      /** @description private network, from GET /v1/networks */
      network_id: string;
      /** @description from GET /v1/keypairs */
      keypair_name: string;
      /**
       * @default [
       *       "default"
       *     ]
       */
      security_group_names?: string[];
      /** @default app */
      db_name?: string;
      /** @default appuser */
      db_user?: string;
      /** @description generated when omitted; returned once, never stored */
      db_password?: string;
      /**
       * @default 16
       * @enum {string}
       */
      version?: '16' | '15' | '14';
      /** @description created at provisioning; pgvector, postgis, pgaudit, pg_stat_statements, hstore, pg_trgm, uuid-ossp, citext, pgcrypto, ltree, btree_gin, btree_gist (alias: vector for pgvector) */
      extensions?: string[];
      /**
       * @description grants db_user superuser privileges
       * @default false
       */
      superuser?: boolean;
      /**
       * @description three servers with automatic failover (not available yet: such a create ends in error)
       * @default false
       */
      ha?: boolean;
    };
    PostgresCreatedView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      db_name: string;
      db_user: string;
      /** @enum {string} */
      db_version: '16' | '15' | '14';
      /** @description plaintext, in this answer only */
      db_password: string;
    };
    FootprintView: {
      /** @description servers the database runs on (3) */
      servers: number;
      /** @description the flavor of each of them */
      flavor_id: string;
    };
    MemberLagView: {
      value: number;
      /** @enum {string} */
      unit: 'bytes' | 'seconds';
    };
    MemberView: {
      address: string;
      /** @enum {string} */
      role: 'primary' | 'replica';
      /** @enum {string} */
      health: 'up' | 'down';
      /** @description replication lag behind the primary, where the engine tells it; null for the primary */
      lag: components['schemas']['MemberLagView'] | null;
    };
    PostgresView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      db_name: string;
      db_user: string;
      /** @enum {string} */
      db_version: '16' | '15' | '14';
      /** Format: date-time */
      updated_at: string;
      /** @description why the server is in error */
      status_reason: string | null;
      /** @description present (true) only on a database created with ha */
      ha?: boolean;
      /** @description ha only: the servers it runs on, each of its flavor */
      footprint?: components['schemas']['FootprintView'];
      /** @description ha only: each member as last observed (empty until the first observation) */
      members?: components['schemas']['MemberView'][];
      /** @description ha only: the address serves, but the database is not whole: a member is down, or (PostgreSQL) a replica does not stream or no synchronous standby is in sync */
      degraded?: boolean;
    };
    CreateCacheDto: {
      /**
       * @description lowercase letters and hyphens
       * @example orders-db
       */
      name: string;
      /** @description server size, from GET /v1/flavors (id or name) */
      flavor_id: string;
      /** @description private network, from GET /v1/networks */
      network_id: string;
      /** @description from GET /v1/keypairs */
      keypair_name: string;
      /**
       * @default [
       *       "default"
       *     ]
       */
      security_group_names?: string[];
      /** @description generated when omitted; returned once, never stored */
      password?: string;
      /**
       * @default 7
       * @enum {string}
       */
      version?: '7' | '6';
    };
    CacheCreatedView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      version: '7' | '6';
      /** @description plaintext, in this answer only */
      password: string;
    };
    CacheView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      version: '7' | '6';
      /** Format: date-time */
      updated_at: string;
      /** @description why the server is in error */
      status_reason: string | null;
    };
    CreateRelationalDatabaseDto: {
      /**
       * @description lowercase letters and hyphens
       * @example orders-db
       */
      name: string;
      /** @description server size, from GET /v1/flavors (id or name) */
      flavor_id: string;
      /** @description private network, from GET /v1/networks */
      network_id: string;
      /** @description from GET /v1/keypairs */
      keypair_name: string;
      /**
       * @default [
       *       "default"
       *     ]
       */
      security_group_names?: string[];
      /** @enum {string} */
      engine: 'mariadb' | 'mysql';
      /** @description per engine, mariadb: 10.11, 11.4 (default 10.11); mysql: 8.0, 8.4 (default 8.0) */
      version?: string;
      /** @default app */
      db_name?: string;
      /** @default appuser */
      db_user?: string;
      /** @description generated when omitted; returned once, never stored */
      db_password?: string;
      /**
       * @description grants db_user every privilege on every database (WITH GRANT OPTION); otherwise all privileges on db_name only
       * @default false
       */
      superuser?: boolean;
    };
    RelationalCreatedView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      engine: 'mariadb' | 'mysql';
      db_name: string;
      db_user: string;
      /** @description mariadb 10.11 or 11.4, mysql 8.0 or 8.4 */
      db_version: string;
      /** @description plaintext, in this answer only */
      db_password: string;
    };
    RelationalView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      engine: 'mariadb' | 'mysql';
      db_name: string;
      db_user: string;
      /** @description mariadb 10.11 or 11.4, mysql 8.0 or 8.4 */
      db_version: string;
      /** Format: date-time */
      updated_at: string;
      /** @description why the server is in error */
      status_reason: string | null;
    };
    CreateAnalyticsDto: {
      /**
       * @description lowercase letters and hyphens
       * @example orders-db
       */
      name: string;
      /** @description server size, from GET /v1/flavors (id or name) */
      flavor_id: string;
      /** @description private network, from GET /v1/networks */
      network_id: string;
      /** @description from GET /v1/keypairs */
      keypair_name: string;
      /**
       * @default [
       *       "default"
       *     ]
       */
      security_group_names?: string[];
      /** @default analytics */
      db_name?: string;
      /** @default appuser */
      db_user?: string;
      /** @description generated when omitted; returned once, never stored */
      db_password?: string;
      /**
       * @description three ClickHouse replicas behind one load-balancer address, replicated tables made ON CLUSTER stratus on all three; roughly triples the cost; never enabled implicitly
       * @default false
       */
      ha?: boolean;
    };
    AnalyticsCreatedView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      db_name: string;
      db_user: string;
      /** @description plaintext, in this answer only */
      db_password: string;
    };
    AnalyticsView: {
      id: number;
      name: string;
      /**
       * @description provisioning, then ready or error; deleting once a delete has started
       * @enum {string}
       */
      status: 'provisioning' | 'ready' | 'error' | 'deleting';
      /** @description null until assigned */
      floating_ip: string | null;
      /** @description PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306 */
      port: number;
      /** Format: date-time */
      created_at: string;
      db_name: string;
      db_user: string;
      /** Format: date-time */
      updated_at: string;
      /** @description why the server is in error */
      status_reason: string | null;
      /** @description present (true) only on a database created with ha */
      ha?: boolean;
      /** @description ha only: the servers it runs on, each of its flavor */
      footprint?: components['schemas']['FootprintView'];
      /** @description ha only: each member as last observed (empty until the first observation) */
      members?: components['schemas']['MemberView'][];
      /** @description ha only: the address serves, but the database is not whole: a member is down, or (PostgreSQL) a replica does not stream or no synchronous standby is in sync */
      degraded?: boolean;
    };
    CreateClusterDto: {
      name: string;
      /** @description image (or snapshot) id or name every member boots from, from GET /v1/images */
      image: string;
      /** @description member size: flavor id or name, from GET /v1/flavors */
      flavor: string;
      /**
       * @description members always running; 3 gives high availability
       * @default 1
       */
      min_size?: number;
      /**
       * @description peak members; at least min_size
       * @default 5
       */
      max_size?: number;
      /** @description private network of the members, from GET /v1/networks */
      backend_network_id: string;
      /** @description the network's subnet (`<network id>-subnet`); derived from backend_network_id when omitted */
      backend_subnet_id?: string;
      /** @description SSH keypair name, from GET /v1/keypairs */
      key_name: string;
      /**
       * @description the balancer's port, and every member's application port (exported to it as PORT)
       * @default 80
       */
      port?: number;
      /** @description public name of the balancer (a label gets the domain suffix); generated when omitted */
      dnsName?: string;
      /**
       * @description CPU fraction that adds a member
       * @default 0.7
       */
      scale_out_threshold?: number;
      /**
       * @description CPU fraction that removes a member; below scale_out_threshold
       * @default 0.2
       */
      scale_in_threshold?: number;
      /** @description shell script every member runs at its first boot */
      user_data?: string;
    };
    ClusterProgressView: {
      /** @description members running and passing their health check */
      healthy: number;
      /** @description members the cluster keeps (desired_size) */
      desired: number;
      /**
       * @description `healthy/desired`
       * @example 2/3
       */
      summary: string;
      /** @description what the build or repair is doing now; null at rest */
      step: string | null;
    };
    ClusterLoadBalancerView: {
      /** @description the cluster's own address; null until assigned */
      address: string | null;
      port: number;
    };
    ClusterMemberView: {
      instance_id: string;
      /** @description the member's private address; null until assigned */
      address: string | null;
      /** @description the machine it runs on; null until known */
      host: string | null;
      /** @description its instance status (GET /v1/instances/{id}) */
      status: string;
      /**
       * @description the balancer's health check: up takes requests; unknown before the first check
       * @enum {string}
       */
      health: 'up' | 'down' | 'unknown';
      /**
       * Format: date-time
       * @description since when health reads as it does
       */
      since: string;
      /**
       * Format: date-time
       * @description when its check first passed (it joined the balancer)
       */
      joined_at: string | null;
      /** @description the cluster's spec generation it was built from */
      spec_generation: number;
      /** Format: date-time */
      created_at: string;
    };
    ClusterEventView: {
      /** Format: date-time */
      at: string;
      /** @enum {string} */
      kind: 'build' | 'heal' | 'scale_out' | 'scale_in' | 'update';
      reason: string;
    };
    ClusterPlacementView: {
      /** @enum {string} */
      status: 'spread' | 'single-host' | 'shared' | 'pending';
      reason: string;
      hosts: string[];
    };
    ClusterCreatedView: {
      id: string;
      name: string;
      /** @enum {string} */
      status: 'CREATE_IN_PROGRESS' | 'CREATE_COMPLETE' | 'CREATE_FAILED' | 'UPDATE_IN_PROGRESS' | 'UPDATE_COMPLETE' | 'UPDATE_FAILED' | 'DELETE_IN_PROGRESS' | 'DELETE_FAILED';
      /** @description why the cluster is *_FAILED (an UPDATE_FAILED cluster still serves on the members of its previous spec) */
      status_reason: string | null;
      progress: components['schemas']['ClusterProgressView'];
      /** @description what new members boot from; for a cluster made from an instance, the snapshot image of it */
      image_id: string;
      /** @description the running instance the cluster was made from (POST /v1/clusters/from-instance), its first member; null for a cluster built from an image */
      source_instance_id: string | null;
      flavor_id: string;
      backend_network_id: string;
      backend_subnet_id: string;
      key_name: string;
      port: number;
      dnsName: string;
      /** @description the dnsName as a URL through the edge's HTTP listener */
      url: string;
      min_size: number;
      max_size: number;
      desired_size: number;
      scale_out_threshold: number;
      scale_in_threshold: number;
      /** @description the member definition's version (image, flavor, key_name, user_data): an update that changes it replaces every member of another, one at a time */
      spec_generation: number;
      load_balancer: components['schemas']['ClusterLoadBalancerView'];
      /** @description oldest first */
      members: components['schemas']['ClusterMemberView'][];
      /** @description the most recent first: build, heal, scaling and update events with their reasons */
      events: components['schemas']['ClusterEventView'][];
      placement: components['schemas']['ClusterPlacementView'];
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      /** @example Stack creation started */
      message: string;
    };
    CreateClusterFromInstanceDto: {
      name: string;
      /** @description member size: flavor id or name, from GET /v1/flavors */
      flavor: string;
      /**
       * @description members always running; 3 gives high availability
       * @default 1
       */
      min_size?: number;
      /**
       * @description peak members; at least min_size
       * @default 5
       */
      max_size?: number;
      /** @description private network of the members, from GET /v1/networks */
      backend_network_id: string;
      /** @description the network's subnet (`<network id>-subnet`); derived from backend_network_id when omitted */
      backend_subnet_id?: string;
      /** @description SSH keypair name, from GET /v1/keypairs */
      key_name: string;
      /** @description public name of the balancer (a label gets the domain suffix); generated when omitted */
      dnsName?: string;
      /**
       * @description CPU fraction that adds a member
       * @default 0.7
       */
      scale_out_threshold?: number;
      /**
       * @description CPU fraction that removes a member; below scale_out_threshold
       * @default 0.2
       */
      scale_in_threshold?: number;
      /** @description shell script every member runs at its first boot */
      user_data?: string;
      /**
       * Format: uuid
       * @description a running (ACTIVE) instance of your project, not yet a member of a cluster: the first member, as it runs
       */
      instance_id: string;
      /** @description the port the instance serves on (its `port`), which is the balancer's port and every member's application port; defaults to it and may not differ */
      port?: number;
    };
    ClusterView: {
      id: string;
      name: string;
      /** @enum {string} */
      status: 'CREATE_IN_PROGRESS' | 'CREATE_COMPLETE' | 'CREATE_FAILED' | 'UPDATE_IN_PROGRESS' | 'UPDATE_COMPLETE' | 'UPDATE_FAILED' | 'DELETE_IN_PROGRESS' | 'DELETE_FAILED';
      /** @description why the cluster is *_FAILED (an UPDATE_FAILED cluster still serves on the members of its previous spec) */
      status_reason: string | null;
      progress: components['schemas']['ClusterProgressView'];
      /** @description what new members boot from; for a cluster made from an instance, the snapshot image of it */
      image_id: string;
      /** @description the running instance the cluster was made from (POST /v1/clusters/from-instance), its first member; null for a cluster built from an image */
      source_instance_id: string | null;
      flavor_id: string;
      backend_network_id: string;
      backend_subnet_id: string;
      key_name: string;
      port: number;
      dnsName: string;
      /** @description the dnsName as a URL through the edge's HTTP listener */
      url: string;
      min_size: number;
      max_size: number;
      desired_size: number;
      scale_out_threshold: number;
      scale_in_threshold: number;
      /** @description the member definition's version (image, flavor, key_name, user_data): an update that changes it replaces every member of another, one at a time */
      spec_generation: number;
      load_balancer: components['schemas']['ClusterLoadBalancerView'];
      /** @description oldest first */
      members: components['schemas']['ClusterMemberView'][];
      /** @description the most recent first: build, heal, scaling and update events with their reasons */
      events: components['schemas']['ClusterEventView'][];
      placement: components['schemas']['ClusterPlacementView'];
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    UpdateClusterDto: {
      name?: string;
      /** @description image (or snapshot) id or name; a change replaces the members one at a time (rolling update) */
      image?: string;
      /** @description flavor id or name; a change replaces the members one at a time (rolling update) */
      flavor?: string;
      /** @description members always running */
      min_size?: number;
      /** @description peak members; at least min_size */
      max_size?: number;
      /** @description members to keep now, within min_size..max_size; when left out, the current one brought within them. The autoscaler moves it again after its cooldown */
      desired_size?: number;
      /** @description CPU fraction that adds a member */
      scale_out_threshold?: number;
      /** @description CPU fraction that removes a member; below scale_out_threshold */
      scale_in_threshold?: number;
      /** @description SSH keypair name; a change replaces the members one at a time (rolling update) */
      key_name?: string;
      /** @description shell script every new member runs at its first boot; a change replaces the members one at a time */
      user_data?: string;
      /** @description accepted only as it is (the same value); a change is refused with 400: create a new cluster for another */
      port?: number;
      /** @description accepted only as it is (the same value); a change is refused with 400: create a new cluster for another */
      dnsName?: string;
      /** @description accepted only as it is (the same value); a change is refused with 400: create a new cluster for another */
      backend_network_id?: string;
      /** @description accepted only as it is (the same value); a change is refused with 400: create a new cluster for another */
      backend_subnet_id?: string;
    };
    JwksView: {
      /** @description JSON Web Keys (RFC 7517): kty, n, e, kid, use, alg */
      keys: {
        [key: string]: unknown;
      }[];
    };
    WhoamiView: {
      project_id: string;
      user_id: string;
    };
    ErrorDetail: {
      /**
       * @description follows the status (400 bad_request, 401 unauthorized, ...)
       * @enum {string}
       */
      code:
        | 'bad_request'
        | 'unauthorized'
        | 'forbidden'
        | 'not_found'
        | 'method_not_allowed'
        | 'not_acceptable'
        | 'request_timeout'
        | 'conflict'
        | 'length_required'
        | 'payload_too_large'
        | 'uri_too_long'
        | 'unsupported_media_type'
        | 'unprocessable_entity'
        | 'too_many_requests'
        | 'request_header_fields_too_large'
        | 'internal_error'
        | 'bad_gateway'
        | 'service_unavailable'
        | 'gateway_timeout'
        | 'rate_limited'
        | 'quota_exceeded';
      /** @description what was wrong; for a bad field it names the field */
      message: string;
      /** @description on a 429 only: seconds to wait before retrying, as the Retry-After header says */
      retry_after?: number;
    };
    ErrorEnvelopeView: {
      error: components['schemas']['ErrorDetail'];
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  Health_health: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LiveView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Health_ready: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReadyView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis does not answer (the message names which) */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Catalog_flavors: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FlavorPage'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description limit out of 1..100, or a cursor this API did not issue */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Catalog_securityGroups: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SecurityGroupPage'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description limit out of 1..100, or a cursor this API did not issue */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Catalog_images: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImagePage'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description limit out of 1..100, or a cursor this API did not issue */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Catalog_networks: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['NetworkPage'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description limit out of 1..100, or a cursor this API did not issue */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Catalog_keypairs: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['KeypairPage'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description limit out of 1..100, or a cursor this API did not issue */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Instances_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'BUILD' | 'ACTIVE' | 'SHUTOFF' | 'ERROR' | 'DELETING';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InstanceListItemView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Instances_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateInstanceDto'];
      };
    };
    responses: {
      /** @description status building. The worker has the network assign its address (metadata.privateIp, and address in the detail, appear then); a network with no free address left ends it in ERROR with a status_reason naming the network */
      202: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InstanceCreatedView'];
        };
      };
      /** @description invalid field, or an unknown image, flavor, network, keypair or security group; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its instances or proxy_hosts or volume_gb quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Instances_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description address is null (and metadata.privateIp absent) until the network assigned it */
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InstanceDetailView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Instances_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started; the instance disappears from the list when it is gone */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Volumes_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateVolumeDto'];
      };
    };
    responses: {
      /** @description the volume object */
      201: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VolumeView'];
        };
      };
      /** @description invalid request: the message names the field; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its volume_gb quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Volumes_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'creating' | 'available' | 'attaching' | 'in-use' | 'detaching' | 'deleting' | 'error';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VolumeView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance (another project's volume is 404, as a missing one) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Volumes_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description message: Volume deleted successfully */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MessageView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance (another project's volume is 404, as a missing one) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such volume */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the volume is attached or changing */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Volumes_attach: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AttachVolumeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VolumeAttachmentResultView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance (another project's volume is 404, as a missing one) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such volume or instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description already attached, or not available */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Volumes_detach: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DetachVolumeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VolumeAttachmentResultView'];
        };
      };
      /** @description the attachment id is not the volume's */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance (another project's volume is 404, as a missing one) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such volume */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the volume is not attached */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Gateway_availablePort: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AvailablePortView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no free port left in the range */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Gateway_usedPorts: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsedPortsView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Gateway_health: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GatewayHealthView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Gateway_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateGatewayRouteDto'];
      };
    };
    responses: {
      /** @description the route, status active */
      200: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GatewayRouteView'];
        };
      };
      /** @description protocol other than tcp, port outside the range, targetIp not an address of your instances or databases, targetPort a host service's, unknown certificate; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its gateway_routes quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description port used by another route, or held by another process on the gateway host; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the edge cannot serve the route now: not running, or its HAProxy failed */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Gateway_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        port: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RouteDeletedView'];
        };
      };
      /** @description not a port number */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no route of yours on that port */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateProxyHostDto'];
      };
    };
    responses: {
      /** @description the proxy host */
      201: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ProxyHostView'];
        };
      };
      /** @description invalid field, or a name outside the domain suffix; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance; or code quota_exceeded: the create would take the project past its proxy_hosts quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the name is taken; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_updateDns: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateDnsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetadataMergedView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's instance */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ProxyHostView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        proxyHostId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ProxyHostView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description not a proxy host id */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such proxy host (or, with a token, not one of your project) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        proxyHostId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateProxyHostDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ProxyHostView'];
        };
      };
      /** @description not a proxy host id, or an invalid field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such proxy host (or, with a token, not one of your project) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the new name is taken */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Dns_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        proxyHostId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MessageView'];
        };
      };
      /** @description not a proxy host id */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such proxy host (or, with a token, not one of your project) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Databases_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'provisioning' | 'ready' | 'error' | 'deleting';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PostgresView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Databases_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateDatabaseDto'];
      };
    };
    responses: {
      /** @description status provisioning; the password is in this answer only (poll GET until ready, every 15 to 30 s). floating_ip is null until the server is ready on the address its network assigned; a network with no free address left ends it in error with a status_reason naming the network */
      202: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PostgresCreatedView'];
        };
      };
      /** @description invalid field, or an unknown flavor, network, keypair or security group; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its databases quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the project has a database of that name; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Databases_resetPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the create response with the new password, in this answer only */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PostgresCreatedView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the server is not ready (provisioning, error or deleting) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Databases_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PostgresView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Databases_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started: the server stops, its data and address go, then it leaves the list */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Cache_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'provisioning' | 'ready' | 'error' | 'deleting';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CacheView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Cache_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateCacheDto'];
      };
    };
    responses: {
      /** @description status provisioning; the password is in this answer only (poll GET until ready, every 15 to 30 s). floating_ip is null until the server is ready on the address its network assigned; a network with no free address left ends it in error with a status_reason naming the network */
      202: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CacheCreatedView'];
        };
      };
      /** @description invalid field (ha is not accepted), or an unknown flavor, network, keypair or security group; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its caches quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the project has a cache instance of that name; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Cache_resetPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the create response with the new password, in this answer only */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CacheCreatedView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the server is not ready (provisioning, error or deleting) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Cache_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CacheView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Cache_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started: the server stops, its data and address go, then it leaves the list */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  RelationalDatabases_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'provisioning' | 'ready' | 'error' | 'deleting';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RelationalView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  RelationalDatabases_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateRelationalDatabaseDto'];
      };
    };
    responses: {
      /** @description status provisioning; the password is in this answer only (poll GET until ready, every 15 to 30 s). floating_ip is null until the server is ready on the address its network assigned; a network with no free address left ends it in error with a status_reason naming the network */
      202: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RelationalCreatedView'];
        };
      };
      /** @description invalid field (ha is not accepted; engine and version must be known), or an unknown flavor, network, keypair or security group; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the project has a relational database of that name; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  RelationalDatabases_resetPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the create response with the new password, in this answer only */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RelationalCreatedView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the server is not ready (provisioning, error or deleting) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  RelationalDatabases_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RelationalView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  RelationalDatabases_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started: the server stops, its data and address go, then it leaves the list */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Analytics_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'provisioning' | 'ready' | 'error' | 'deleting';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AnalyticsView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Analytics_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateAnalyticsDto'];
      };
    };
    responses: {
      /** @description status provisioning; the password is in this answer only (poll GET until ready, every 15 to 30 s). floating_ip is null until the server is ready on the address its network assigned; a network with no free address left ends it in error with a status_reason naming the network */
      202: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AnalyticsCreatedView'];
        };
      };
      /** @description invalid field, or an unknown flavor, network, keypair or security group; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code quota_exceeded: the create would take the project past its analytics quota (the message names the quota, its limit and the usage now); nothing was created */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the project has an analytics instance of that name; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Analytics_resetPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the create response with the new password, in this answer only */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AnalyticsCreatedView'];
        };
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the server is not ready (provisioning, error or deleting) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Analytics_get: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AnalyticsView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Analytics_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started: the server stops, its data and address go, then it leaves the list */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's server */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such server in this collection */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_list: {
    parameters: {
      query?: {
        /** @description Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once. */
        wait?: number;
        /** @description Items per page, newest first. Without it a list answers at most 100; the Link header (rel="next") says when there are more. */
        limit?: number;
        /** @description Opaque: taken from the rel="next" link of the previous page, never built by hand */
        cursor?: string;
        /** @description Only the items with exactly this name */
        name?: string;
        /** @description Only the items in this status */
        status?: 'CREATE_IN_PROGRESS' | 'CREATE_COMPLETE' | 'CREATE_FAILED' | 'UPDATE_IN_PROGRESS' | 'UPDATE_COMPLETE' | 'UPDATE_FAILED' | 'DELETE_IN_PROGRESS' | 'DELETE_FAILED';
      };
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page, newest first */
      200: {
        headers: {
          /** @description Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url. */
          Link?: string;
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClusterView'][];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateClusterDto'];
      };
    };
    responses: {
      /** @description stack creation started: status CREATE_IN_PROGRESS, progress 0/min_size */
      201: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClusterCreatedView'];
        };
      };
      /** @description invalid field (named in the message), max_size below min_size, scale_in_threshold not below scale_out_threshold, or an unknown image, flavor, network, subnet or keypair; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the dnsName is taken; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_createFromInstance: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateClusterFromInstanceDto'];
      };
    };
    responses: {
      /** @description stack creation started: status CREATE_IN_PROGRESS, the instance linked as the first member */
      201: {
        headers: {
          /** @description With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first */
          'Idempotent-Replayed'?: 'true' | 'false';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClusterCreatedView'];
        };
      };
      /** @description invalid field (named in the message), as POST /v1/clusters; `image` sent; `port` other than the instance's; `backend_network_id` other than the instance's network; or a malformed Idempotency-Key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description instance_id is another project's instance */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such instance */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the instance is not ACTIVE, or already a member of a cluster; or the dnsName is taken; or a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the Idempotency-Key was first used with another body or route */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClusterView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's cluster */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such cluster */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateClusterDto'];
      };
    };
    responses: {
      /** @description update started: status UPDATE_IN_PROGRESS (unchanged when nothing changes) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClusterView'];
        };
      };
      /** @description invalid field (named in the message): the same rules as create, desired_size outside min_size..max_size, or a change of port, dnsName, backend_network_id or backend_subnet_id */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's cluster */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such cluster */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the cluster is being built, failed to build, or is being deleted (CREATE_IN_PROGRESS, CREATE_FAILED, DELETE_IN_PROGRESS, DELETE_FAILED) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is over the size limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description the body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Clusters_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deletion started */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid request: the message names the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description missing or invalid x-api-key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description another project's cluster */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description no such cluster */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the API key or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Auth_keys: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JwksView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
  Auth_whoami: {
    parameters: {
      query?: never;
      header?: {
        /** @description The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change. */
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WhoamiView'];
        };
      };
      /** @description not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it) */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description code rate_limited: the rate limit of the token subject or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after) */
      429: {
        headers: {
          /** @description seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description unexpected error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
      /** @description PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorEnvelopeView'];
        };
      };
    };
  };
}
