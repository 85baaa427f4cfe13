import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';

/*
 * Field rules in the order they are checked: presence, then type, then
 * bounds. With stopAtFirstError the first failing one is the message, so a
 * number sent for a string says "must be a string", not "too long".
 */

/**
 * An optional field may be left out, but not sent as null: class-validator's
 * IsOptional lets null through unchecked, and the code after validation
 * reads a present field as the type it declares (a null `domain` was a 500).
 */
export const Omittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export const RequiredString = (max = 255) => applyDecorators(IsDefined({ message: 'is required' }), IsString(), IsNotEmpty(), MaxLength(max));

export const OptionalString = (max = 255) => applyDecorators(Omittable(), IsString(), MaxLength(max));

export const OptionalStringArray = (maxItems = 20, maxLength = 255) =>
  applyDecorators(Omittable(), IsArray(), ArrayMaxSize(maxItems), IsString({ each: true }), MaxLength(maxLength, { each: true }));

export const RequiredInt = (min: number, max: number) => applyDecorators(IsDefined({ message: 'is required' }), IsInt(), Min(min), Max(max));

export const OptionalInt = (min: number, max: number) => applyDecorators(Omittable(), IsInt(), Min(min), Max(max));
