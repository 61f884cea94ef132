import {
  Anchor,
  Badge,
  Group,
  Modal,
  Progress,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { IconSearch } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FavoriteStar } from "../components/favorite-star";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { GuardedButton } from "../components/guarded-button";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { useFormSave } from "../components/use-form-save";
import { queryKeys } from "../query-keys";
import { healthColor } from "./health";
import { projectPath } from "./paths";
import { useFavoriteProject } from "./queries";

export function useProjects() {
  return useQuery({
    queryKey: queryKeys.projects.list(),
    queryFn: () => unwrap(api.GET("/api/admin/projects")),
  });
}

export default function ProjectsPage() {
  const projects = useProjects();
  const can = useCan();
  const [creating, { open, close }] = useDisclosure();
  const [search, setSearch] = useState("");
  // The person's favourites first, each group in the service's order.
  const shown = useMemo(() => {
    const text = search.trim().toLowerCase();
    const matching = (projects.data?.projects ?? []).filter(
      (project) =>
        !text ||
        [project.name, project.id, project.description ?? ""].some((field) =>
          field.toLowerCase().includes(text),
        ),
    );
    return [
      ...matching.filter((project) => project.favorite),
      ...matching.filter((project) => !project.favorite),
    ];
  }, [projects.data, search]);

  return (
    <>
      <PageHeader
        title="Projects"
        description="Each project holds flags and decides who may change them."
        actions={
          <GuardedButton verdict={can("CREATE_PROJECT")} onClick={open}>
            New project
          </GuardedButton>
        }
      />
      {projects.isError && <ErrorPanel error={projects.error} />}
      <TextInput
        label="Search projects"
        placeholder="Name, id or description"
        leftSection={<IconSearch size={16} aria-hidden />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        maw={320}
        mb="sm"
      />
      <Table striped highlightOnHover aria-label="Projects" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={48}>
              <VisuallyHidden>Favourite</VisuallyHidden>
            </Table.Th>
            <Table.Th>Project</Table.Th>
            <Table.Th>Health</Table.Th>
            <Table.Th>Flags</Table.Th>
            <Table.Th>Members</Table.Th>
            <Table.Th>Mode</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {projects.isPending && (
            <Table.Tr>
              <Table.Td colSpan={6}>
                <Loading label="Loading projects" />
              </Table.Td>
            </Table.Tr>
          )}
          {projects.isSuccess && shown.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={6}>
                <Text c="dimmed" size="sm">
                  {search ? "No project matches." : "No projects yet."}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {shown.map((project) => (
            <ProjectRow key={project.id} project={project} />
          ))}
        </Table.Tbody>
      </Table>
      <Modal opened={creating} onClose={close} title="New project">
        <NewProjectForm onDone={close} />
      </Modal>
    </>
  );
}

type Listed = NonNullable<ReturnType<typeof useProjects>["data"]>["projects"][number];

function ProjectRow({ project }: { project: Listed }) {
  const favorite = useFavoriteProject(project.id);
  return (
    <Table.Tr>
      <Table.Td>
        <FavoriteStar
          name={project.name}
          size="sm"
          favorite={favorite.isPending ? (favorite.variables ?? project.favorite) : project.favorite}
          onChange={(value) => favorite.mutate(value)}
        />
      </Table.Td>
      <Table.Td>
        <Stack gap={0}>
          <Anchor component={Link} to={projectPath(project.id)} fw={600}>
            {project.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {project.description || project.id}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Progress
            value={project.health}
            color={healthColor(project.health)}
            w={80}
            aria-label={`Health of ${project.name}`}
          />
          <Text size="sm">{project.health}%</Text>
        </Group>
      </Table.Td>
      <Table.Td>
        {project.featureCount}
        {project.staleFeatureCount > 0 && (
          <Badge ml="xs" color="orange" variant="light">
            {project.staleFeatureCount} stale
          </Badge>
        )}
      </Table.Td>
      <Table.Td>{project.memberCount}</Table.Td>
      <Table.Td>
        <Badge variant="light">{project.mode}</Badge>
      </Table.Td>
    </Table.Tr>
  );
}

// Ids go into URLs and tokens: the service takes URL-safe names, so offer one made from the name.
const idFrom = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.~-]+/g, "-")
    .replace(/^-+|-+$/g, "");

function NewProjectForm({ onDone }: { onDone: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: {
      name: "",
      // Undefined until typed: the id follows the name.
      id: undefined as string | undefined,
      description: "",
      mode: "open" as "open" | "protected" | "private",
    },
  });
  const projectId = form.values.id ?? idFrom(form.values.name);
  const { mutation: create, submit } = useFormSave(form, {
    save: ({ name, description, mode }) =>
      unwrap(
        api.POST("/api/admin/projects", {
          body: { id: projectId, name, description: description || null, mode },
        }),
      ),
    onSaved: async () => {
      await client.invalidateQueries({ queryKey: queryKeys.projects.list() });
      onDone();
      navigate(projectPath(projectId));
    },
  });
  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField {...form.getInputProps("name")} />
        <TextInput
          label="Project id"
          description="Used in URLs and API tokens; cannot be changed later."
          required
          {...form.getInputProps("id")}
          value={projectId}
        />
        <DescriptionField {...form.getInputProps("description")} />
        <Select
          label="Mode"
          description="Who may change it: open (members, and in default the Editor role), protected (members only), private (members only, hidden from everyone else)."
          data={["open", "protected", "private"]}
          allowDeselect={false}
          {...form.getInputProps("mode")}
        />
        <FormError error={create.error} inline={["name", "id", "description", "mode"]} />
        <FormActions submitLabel="Create project" saving={create.isPending} onCancel={onDone} />
      </Stack>
    </form>
  );
}
