export { MessagingGatewayApi } from './credentials/MessagingGatewayApi.credentials';
export { MessagingGateway } from './nodes/MessagingGateway/MessagingGateway.node';
export { MessagingGatewayTrigger } from './nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';
