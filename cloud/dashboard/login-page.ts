/** The page GET / shows without a session: how to get in. */
export function loginPage(problem?: string): string {
  return page(
    'Log in to the kedge dashboard',
    [
      problem ? `<p><strong>${problem}</strong></p>` : '',
      '<p>Open the link <code>kedge demo</code> (<code>npm start</code>) printed: <code>Dashboard: http://127.0.0.1:8080/?token=…</code>.',
      'Each link logs in one browser, once, within an hour.</p>',
      '<p>For a new link, with the demo running:</p>',
      '<pre>echo {} | kubectl --kubeconfig .kedge/demo/kubeconfig create --raw /kedge/v1/dashboard/login-tokens -f -</pre>',
      '<p>and open the <code>path</code> it prints (<code>/?token=…</code>) at this address.</p>',
    ].join('\n'),
  );
}

export function notBuiltPage(): string {
  return page('The dashboard is not built', '<p>Run <code>npm run build</code> (or <code>npm start</code>), then reload.</p>');
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/ui/style.css"></head>
<body><main class="login"><h1>${title}</h1>
${body}
</main></body>
</html>
`;
}
