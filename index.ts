export { MessagingGatewayApi } from './credentials/MessagingGatewayApi.credentials';
