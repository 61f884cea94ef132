import {
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
} from "@dnd-kit/core";
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { Stack } from "@mantine/core";
import type { ReactNode } from "react";
import type { Strategy } from "../queries";
import type { DragHandle } from "./strategy-card";

/**
 * Strategies in evaluation order, reordered by dragging a card's handle with the pointer or
 * the keyboard (space to pick up, arrows to move, space to drop); `onReorder` gets the new order.
 */
export function StrategyList({
  strategies,
  describe,
  disabledReason,
  onReorder,
  renderCard,
}: {
  strategies: Strategy[];
  /** How a strategy is called in what screen readers are told while it moves. */
  describe: (strategy: Strategy) => string;
  /** Why the order cannot be changed, when it cannot. */
  disabledReason: string | undefined;
  onReorder: (next: Strategy[]) => void;
  renderCard: (strategy: Strategy, handle: DragHandle) => ReactNode;
}) {
  const sensors = useSensors(
    // A few pixels of travel before a drag starts, so a click on the handle stays a click.
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const name = (id: string | number) => {
    const strategy = strategies.find((candidate) => candidate.id === id);
    return strategy ? describe(strategy) : "the strategy";
  };
  const position = (id: string | number | undefined) =>
    `position ${strategies.findIndex((candidate) => candidate.id === id) + 1} of ${strategies.length}`;

  const dropped = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = strategies.findIndex((strategy) => strategy.id === active.id);
    const to = strategies.findIndex((strategy) => strategy.id === over.id);
    onReorder(arrayMove(strategies, from, to));
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={dropped}
      accessibility={{
        announcements: {
          onDragStart: ({ active }) => `Picked up ${name(active.id)}, at ${position(active.id)}.`,
          onDragOver: ({ active, over }) =>
            over
              ? `${name(active.id)} is over ${position(over.id)}.`
              : `${name(active.id)} is no longer over the list.`,
          onDragEnd: ({ active, over }) =>
            over
              ? `${name(active.id)} dropped at ${position(over.id)}.`
              : `${name(active.id)} dropped where it was.`,
          onDragCancel: ({ active }) => `Moving ${name(active.id)} cancelled; it stays where it was.`,
        },
      }}
    >
      <SortableContext
        items={strategies.map((strategy) => strategy.id)}
        strategy={verticalListSortingStrategy}
      >
        <Stack gap="xs" component="ol" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {strategies.map((strategy) => (
            <SortableItem key={strategy.id} id={strategy.id} disabledReason={disabledReason}>
              {(handle) => renderCard(strategy, handle)}
            </SortableItem>
          ))}
        </Stack>
      </SortableContext>
    </DndContext>
  );
}

function SortableItem({
  id,
  disabledReason,
  children,
}: {
  id: string;
  disabledReason: string | undefined;
  children: (handle: DragHandle) => ReactNode;
}) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({
    id,
    disabled: disabledReason !== undefined,
  });
  return (
    <li
      ref={setNodeRef}
      style={{
        transform: transform ? `translate3d(0, ${Math.round(transform.y)}px, 0)` : undefined,
        transition,
        position: "relative",
        zIndex: isDragging ? 1 : undefined,
      }}
    >
      {children({ attributes, listeners, disabledReason })}
    </li>
  );
}
