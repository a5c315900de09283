import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiOperation } from '@nestjs/swagger';
import { ContractDocument } from './contract-document.service';

@Controller('v1/openapi.json')
export class ContractController {
  constructor(private readonly contract: ContractDocument) {}

  @Get()
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiProduces('application/json')
  @ApiOkResponse({
    description: 'This document (OpenAPI 3.1), byte for byte the committed `contract/openapi.json`.',
    schema: {
      type: 'object',
      required: ['openapi', 'info', 'paths'],
      properties: { openapi: { type: 'string', enum: ['3.1.0'] } },
    },
  })
  @ApiOperation({
    summary: 'Get this OpenAPI document',
    description: 'Any authenticated caller: the committed `contract/openapi.json`, byte for byte.',
  })
  document(): Buffer {
    return this.contract.bytes;
  }
}
