import { Type } from '@nestjs/common';

const COMPONENTS = new Set<Type>();

/** A class no route refers to that the contract still describes (an MCP tool's arguments). */
export const ContractComponent = (): ClassDecorator => (target) => {
  COMPONENTS.add(target as unknown as Type);
};

export const contractComponents = (): Type[] => [...COMPONENTS];
