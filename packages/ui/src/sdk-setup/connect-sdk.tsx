import {
  Alert,
  Anchor,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  Stack,
  Tabs,
  Text,
  Title,
} from "@mantine/core";
import { type ReactNode, useId } from "react";
import { Link } from "react-router";
import {
  browserSnippet,
  nodeSnippet,
  openFeatureServerSnippet,
  openFeatureWebSnippet,
  PLACEHOLDERS,
  type Snippet,
} from "./snippets";

type TokenType = "client" | "frontend" | "admin";

/**
 * How to point an application at this service: the code for the Node.js SDK, the browser SDK
 * and OpenFeature, with this service's address and, when one was just made, the token. Each
 * SDK is offered only the kind of token it takes. Without a token (an empty project), the
 * code holds a stand-in and the panel says where tokens are made.
 */
export function ConnectSdk({ token }: { token?: { type: TokenType; secret: string } }) {
  const origin = window.location.origin;
  const titleId = useId();
  const secretFor = (type: "client" | "frontend") =>
    token === undefined ? PLACEHOLDERS[type] : token.type === type ? token.secret : undefined;
  const client = secretFor("client");
  const frontend = secretFor("frontend");
  return (
    <Card withBorder component="section" aria-labelledby={titleId}>
      <Stack gap="sm">
        <Title order={4} id={titleId}>
          Connect an SDK
        </Title>
        {token === undefined && (
          <Text size="sm">
            An application reads its flags through an SDK holding an API token. A token's secret is shown only
            when it is made: put yours in place of {PLACEHOLDERS.client} or {PLACEHOLDERS.frontend}.{" "}
            <Anchor component={Link} to="/api-tokens">
              Create an API token
            </Anchor>
          </Text>
        )}
        {token?.type === "admin" ? (
          <Alert color="yellow" title="SDKs do not take admin tokens">
            An admin token is for scripts calling the admin API: it may change everything, and an application
            holding one would give that away. Create a backend token for a server SDK, or a frontend token for
            a browser.
          </Alert>
        ) : (
          <Tabs defaultValue={token?.type === "frontend" ? "browser" : "node"} keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="node">Node.js</Tabs.Tab>
              <Tabs.Tab value="browser">Browser</Tabs.Tab>
              <Tabs.Tab value="openfeature">OpenFeature</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="node" pt="sm">
              {client === undefined ? (
                <WrongToken>
                  Server SDKs take a backend token; this frontend token is for browser and mobile SDKs.
                </WrongToken>
              ) : (
                <SnippetView name="Node.js" snippet={nodeSnippet(origin, client)} />
              )}
            </Tabs.Panel>
            <Tabs.Panel value="browser" pt="sm">
              {frontend === undefined ? (
                <BrowserNeedsFrontendToken />
              ) : (
                <Stack gap="sm">
                  <SnippetView name="Browser" snippet={browserSnippet(origin, frontend)} />
                  <Text size="sm" c="dimmed">
                    Through signalbox-proxy instead, use the proxy's address ending in /proxy as the url and
                    one of its client keys as the clientKey (
                    <Anchor component={Link} to="/guides/proxy">
                      the proxy guide
                    </Anchor>
                    ).
                  </Text>
                </Stack>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="openfeature" pt="sm">
              <Stack gap="sm">
                <Text size="sm">
                  OpenFeature's SDKs read Signalbox through OpenFeature's own protocol (OFREP) with a frontend
                  token: in a browser with the OFREP web provider, on a server (in any language with an OFREP
                  provider) evaluating each flag for its context. Through signalbox-proxy, use the proxy's
                  address and one of its client keys.
                </Text>
                {frontend === undefined ? (
                  <BrowserNeedsFrontendToken />
                ) : (
                  <>
                    <SnippetView name="OpenFeature web" snippet={openFeatureWebSnippet(origin, frontend)} />
                    <SnippetView
                      name="OpenFeature server"
                      snippet={openFeatureServerSnippet(origin, frontend)}
                    />
                  </>
                )}
              </Stack>
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Card>
  );
}

function WrongToken({ children }: { children: ReactNode }) {
  return (
    <Alert color="blue" title="Another kind of token">
      {children}{" "}
      <Anchor component={Link} to="/api-tokens">
        Create one on the API tokens page.
      </Anchor>
    </Alert>
  );
}

function BrowserNeedsFrontendToken() {
  return (
    <WrongToken>
      A browser takes a frontend token. A backend token fetches every flag's full configuration (strategies,
      constraints, user lists), which any visitor of the page could read.
    </WrongToken>
  );
}

function SnippetView({ name, snippet }: { name: string; snippet: Snippet }) {
  return (
    <Stack gap="xs">
      <Code block aria-label={`${name} install command`}>
        {snippet.install}
      </Code>
      <Code block aria-label={`${name} code`}>
        {snippet.code}
      </Code>
      <Group justify="flex-end">
        <CopyButton value={snippet.code}>
          {({ copied, copy }) => (
            <Button variant="light" color={copied ? "teal" : "blue"} onClick={copy}>
              {copied ? "Copied" : `Copy the ${name} code`}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}
