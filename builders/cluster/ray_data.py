"""The rotating `PhantomWikiDataset` as a Ray Data source: the local dataset's items, made in read tasks.

    from leakproof_qa.builders.cluster.ray_data import read_phantom_wiki
    data = PhantomWikiDataset("n5000_s1", seed=7, size=100_000, universe_every=500)
    items = read_phantom_wiki(data)            # a ray.data.Dataset of data's items

A read task makes a block of consecutive items: with `universe_every=N`, block b is items b*N .. b*N+N-1, which are
exactly the items of one rotated universe (its seed drawn for block b), so each universe is built once, on the
worker that reads its block. Item i is a pure function of the dataset's settings and i, so whichever worker makes
it, and however Ray splits the reads, the items are the local dataset's. Without rotation, blocks of ITEMS_PER_BLOCK.
Ray hands blocks on as they end (each block's items in order; `metadata["index"]` is each item's place): set
`ray.data.DataContext.get_current().execution_options.preserve_order = True` to read them in the dataset's order.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from .on_ray import ray_module

ITEMS_PER_BLOCK = 256


def _blocks(dataset: Any) -> list[range]:
    """The items of each read task: one universe's worth each when the dataset rotates universes."""
    step = dataset.universe_every or ITEMS_PER_BLOCK
    return [range(start, min(dataset.size, start + step)) for start in range(0, dataset.size, step)]


def _block(dataset: Any, items: range) -> list[Any]:
    """A read task's work: the dataset's items `items`, as one Arrow table."""
    import pyarrow as pa

    return [pa.Table.from_pylist([dataset[i] for i in items])]


def read_phantom_wiki(dataset: Any) -> Any:
    """`dataset` (a phantom_env.rl.PhantomWikiDataset) as a `ray.data.Dataset` of the same items, in order."""
    ray = ray_module()
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    class PhantomWikiSource(Datasource):
        """Ray's read interface over the dataset: one read task per block of items."""

        def estimate_inmemory_data_size(self) -> int | None:
            return None

        def get_read_tasks(
            self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None
        ) -> list[ReadTask]:
            return [
                ReadTask(
                    partial(_block, dataset, items),
                    BlockMetadata(num_rows=len(items), size_bytes=None, exec_stats=None, input_files=None),
                )
                for items in _blocks(dataset)
            ]

    return ray.data.read_datasource(PhantomWikiSource(), override_num_blocks=len(_blocks(dataset)))
