import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal } from '@stratus/core';

/** The authenticated caller, set by whichever guard authenticated the request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => ctx.switchToHttp().getRequest().principal);
