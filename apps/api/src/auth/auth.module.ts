import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ProjectsService } from '@stratus/core';
import { RateLimiter } from '../http/rate-limiter';
import { ApiKeyGuard } from './api-key.guard';
import { AuthController } from './auth.controller';
import { BearerGuard } from './bearer.guard';
import { BearerStrategy } from './bearer.strategy';
import { JwksService } from './jwks.service';

@Module({
  imports: [PassportModule],
  controllers: [AuthController],
  providers: [ProjectsService, RateLimiter, ApiKeyGuard, BearerStrategy, BearerGuard, JwksService],
  exports: [ProjectsService, RateLimiter, ApiKeyGuard, BearerGuard],
})
export class AuthModule {}
