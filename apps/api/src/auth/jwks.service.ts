import { Injectable } from '@nestjs/common';
import { AppConfig, EmbeddedTokenSigner } from '@stratus/core';

@Injectable()
export class JwksService {
  private readonly signer: EmbeddedTokenSigner | null;

  constructor(config: AppConfig) {
    this.signer = config.AUTH_JWKS_URL ? null : EmbeddedTokenSigner.fromDataDir(config.DATA_DIR);
  }

  keys(): { keys: Array<Record<string, unknown>> } {
    return this.signer ? this.signer.jwks() : { keys: [] };
  }
}
