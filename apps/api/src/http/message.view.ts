import { ApiProperty } from '@nestjs/swagger';

/** `{message}`: what the deletes SPEC.md answers "with a message" return. */
export class MessageView {
  @ApiProperty({ example: 'Volume deleted successfully' })
  message: string;
}
