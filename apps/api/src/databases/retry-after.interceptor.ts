import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Observable, tap } from 'rxjs';

/** SPEC.md: poll a provisioning database every 15 to 30 seconds. */
export const PROVISIONING_RETRY_AFTER_SECONDS = 15;

/**
 * Adds `Retry-After` to answers about a resource (or a list holding one)
 * still provisioning. Advice only: nothing on the server delays or refuses a
 * client that polls sooner.
 */
@Injectable()
export class ProvisioningRetryAfterInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      tap((body) => {
        const items = Array.isArray(body) ? body : [body];
        if (items.some((i) => (i as { status?: unknown } | null)?.status === 'provisioning')) {
          context.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(PROVISIONING_RETRY_AFTER_SECONDS));
        }
      }),
    );
  }
}
