import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalSnapshots } from './local-snapshots';

export interface LocalImage {
  id: string;
  name: string;
  description: string;
  /** Shell line the boot script execs at every boot, in the instance's home. */
  start: string;
  /** `port`: ready when the app port accepts connections; `boot`: when the boot script reached `start`. */
  readiness: 'port' | 'boot';
  /** Files copied into a new instance's home, like a root disk. */
  dir: string;
}

/** The repository's `images/` folder: one folder per image with an image.json. */
export function defaultImagesDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'images')) || !existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('images/ folder not found above ' + __dirname);
    dir = up;
  }
  return join(dir, 'images');
}

/**
 * The images an instance may boot from: the repository's own (public, in
 * the catalog), and with `snapshots` the snapshot images made of instances
 * (private to a project: the control plane keeps their catalog rows, and
 * who may boot them).
 */
export class LocalImages {
  private readonly images: Map<string, LocalImage>;

  constructor(
    root = defaultImagesDir(),
    readonly snapshots: LocalSnapshots | null = null,
  ) {
    this.images = new Map(
      readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'image.json')))
        .map((d) => {
          const manifest = JSON.parse(readFileSync(join(root, d.name, 'image.json'), 'utf8'));
          return [d.name, { id: d.name, dir: join(root, d.name), ...manifest } as LocalImage];
        }),
    );
  }

  /** The public images (snapshots are not in the provider's catalog). */
  list(): LocalImage[] {
    return [...this.images.values()];
  }

  /** Read from disk for a snapshot: another worker of the installation may have made it. */
  get(id: string): LocalImage | undefined {
    return this.images.get(id) ?? this.snapshots?.get(id) ?? undefined;
  }

  /** Whether `id` is one of the repository's own images (a snapshot may not take its id). */
  isBuiltIn(id: string): boolean {
    return this.images.has(id);
  }
}
