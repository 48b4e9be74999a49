import { connectAsync, type MqttClient } from 'mqtt';

/**
 * Raw MQTT clients of one test's broker, each with the password `passwords` gives its user;
 * `closeAll` (for afterEach) ends every one still open.
 */
export function brokerClients(url: () => string, passwords: Record<string, string>): {
  connect(clientId: string, username: string): Promise<MqttClient>;
  closeAll(): Promise<void>;
} {
  const clients: MqttClient[] = [];
  return {
    async connect(clientId, username) {
      const c = await connectAsync(url(), { clientId, username, password: passwords[username], protocolVersion: 4, reconnectPeriod: 0 });
      clients.push(c);
      return c;
    },
    closeAll: async () => {
      await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    },
  };
}
