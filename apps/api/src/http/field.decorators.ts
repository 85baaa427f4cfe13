import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/*
 * Field rules in the order they are checked: presence, then type, then
 * bounds. With stopAtFirstError the first failing one is the message, so a
 * number sent for a string says "must be a string", not "too long".
 */

export const RequiredString = (max = 255) =>
  applyDecorators(IsDefined({ message: 'is required' }), IsString(), IsNotEmpty(), MaxLength(max));

export const OptionalString = (max = 255) => applyDecorators(IsOptional(), IsString(), MaxLength(max));

export const OptionalStringArray = (maxItems = 20, maxLength = 255) =>
  applyDecorators(IsOptional(), IsArray(), ArrayMaxSize(maxItems), IsString({ each: true }), MaxLength(maxLength, { each: true }));

export const RequiredInt = (min: number, max: number) =>
  applyDecorators(IsDefined({ message: 'is required' }), IsInt(), Min(min), Max(max));

export const OptionalInt = (min: number, max: number) => applyDecorators(IsOptional(), IsInt(), Min(min), Max(max));
