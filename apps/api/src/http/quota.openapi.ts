import { ApiForbiddenResponse } from '@nestjs/swagger';
import { QuotaName } from '@stratus/core';

/**
 * The 403 of a create that counts against quotas: `error.code` is
 * `quota_exceeded` and the message names the quota, its limit and the usage
 * now. `also`: what else the route answers 403 for.
 */
export const QuotaLimited = (quotas: QuotaName[], also?: string) =>
  ApiForbiddenResponse({
    description:
      `${also ? `${also}; or ` : ''}code quota_exceeded: the create would take the project past its ${quotas.join(' or ')} quota ` +
      '(the message names the quota, its limit and the usage now); nothing was created',
  });
