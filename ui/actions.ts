import { call } from './live/api.js';

const segment = encodeURIComponent;

/** Everything the page's buttons do, each one API call through the cloud. */
export const actions = {
  cutLink: (node: string) => call('POST', `/kedge/v1/demo/links/${segment(node)}/cut`),
  healLink: (node: string) => call('POST', `/kedge/v1/demo/links/${segment(node)}/heal`),
  restartEdge: (node: string) => call('POST', `/kedge/v1/demo/edges/${segment(node)}/restart`),
  crashEdge: (node: string) => call('POST', `/kedge/v1/demo/edges/${segment(node)}/crash`),
  rebootNode: (node: string) => call('POST', `/kedge/v1/demo/edges/${segment(node)}/reboot`),
  stopComponent: (name: string) => call('POST', `/kedge/v1/components/${segment(name)}/stop`),
  startComponent: (name: string) => call('POST', `/kedge/v1/components/${segment(name)}/start`),
  deletePod: (namespace: string, name: string) => call('DELETE', `/api/v1/namespaces/${segment(namespace)}/pods/${segment(name)}`),
  scaleDeployment: (namespace: string, name: string, replicas: number) =>
    call('PATCH', `/apis/apps/v1/namespaces/${segment(namespace)}/deployments/${segment(name)}/scale`, {
      body: { spec: { replicas } },
      contentType: 'application/merge-patch+json',
    }),
};

/** Runs a control and says how it went, in words (an aria-live region reads them out). */
export type Runner = (label: string, work: () => Promise<unknown>, button?: HTMLButtonElement) => void;
