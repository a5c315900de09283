import { configCheckConnector } from './config-check';

export const redisConnector = configCheckConnector('redis', 'key_value');
