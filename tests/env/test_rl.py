"""The procedural dataset (reasoning-gym's interface) and the reward (TRL's GRPO signature), without TRL or torch."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.metrics import DEFLECTION
from leakproof_qa.builders.phantomwiki.config import ConfigError, settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.rl import PhantomWikiDataset, curriculum, reward, score_answer


def test_an_item_is_a_pure_function_of_the_settings_the_seed_and_its_index():
    one, two = PhantomWikiDataset("n500_d10_s1", seed=7, size=20), PhantomWikiDataset("n500_d10_s1", seed=7, size=20)
    assert [one[i] for i in (19, 3, 0)] == [two[i] for i in (19, 3, 0)] and list(one) == list(two)
    assert list(one) != list(PhantomWikiDataset("n500_d10_s1", seed=8, size=20))
    item = one[0]
    assert set(item) == {"question", "answer", "metadata"} and item["answer"] == ", ".join(item["metadata"]["answers"])
    assert len(one) == 20
    with pytest.raises(IndexError):
        one[20]


def test_items_carry_their_required_articles_and_the_asked_distractors():
    data = PhantomWikiDataset("n500_d10_s1", seed=1, size=30, distractors=5)
    for item in data:
        titles = [d["title"] for d in item["metadata"]["documents"]]
        assert set(item["metadata"]["required_titles"]) <= set(titles)
        assert len(titles) == len(item["metadata"]["required_titles"]) + 5 and len(set(titles)) == len(titles)
        assert score_answer(item["answer"], item) == 1.0


def test_score_answer_gives_one_on_every_gold_answer_and_zero_on_a_wrong_one():
    generated = generate(settings_from("n5000_s1")[0])
    for q in generated.questions:
        entry = {"answer": ", ".join(q.answer), "metadata": {"answers": q.answer}}
        assert score_answer(", ".join(q.answer), entry) == 1.0
        assert score_answer("Nobody Atall", entry) == 0.0
    entry = {"answer": "Ann Lee, Bo Li", "metadata": {"answers": ["Ann Lee", "Bo Li"]}}
    assert score_answer("<think>Maybe Cy.</think>\nAnswer: Ann Lee", entry) == pytest.approx(2 / 3)
    assert score_answer("insufficient information", entry) == 0.0 and score_answer(None, entry) == 0.0
    assert score_answer("I don't know", {"answer": DEFLECTION}) == 1.0


def test_the_reward_takes_trls_grpo_call():
    data = PhantomWikiDataset("n500_d10_s1", seed=3, size=4)
    rows = list(data)
    completions = [rows[0]["answer"], [{"role": "assistant", "content": rows[1]["answer"]}], "Nobody Atall", ""]
    rewards = reward(
        completions=completions,
        prompts=[r["question"] for r in rows],
        answer=[r["answer"] for r in rows],
        metadata=[r["metadata"] for r in rows],
        trainer_state=None,
        completion_ids=[[1]] * 4,
    )
    assert rewards == [1.0, 1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="answer"):
        reward(completions=["x"])


GOLD = {"answer": "Ann Lee, Bo Li"}


@pytest.mark.parametrize(
    "completion",
    [
        "Answer: Ann Lee, Bo Li [" + "9" * 5000 + "]",  # past Python's integer-string limit
        "Answer: Ann Lee, Bo Li [1, " + "7" * 5000 + "]",
        "<think>" + "[" * 100_000 + "</think>\nAnswer: Ann Lee, Bo Li",
        "Answer: Ann Lee, Bo Li\n" + "x" * (4 << 20),
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Answer: Ann Lee, "}, {"type": "text", "text": "Bo Li"}],
            }
        ],
        [{"type": "text", "text": "Answer: Ann Lee, Bo Li"}],
        {"role": "assistant", "content": "Answer: Ann Lee, Bo Li"},
    ],
    ids=["5000 digits", "a long citation", "deep brackets", "4 MB", "conversation of parts", "parts", "a message"],
)
def test_any_completion_scores_a_number_and_a_right_one_scores_one(completion):
    assert score_answer(completion, GOLD) == 1.0
    assert reward([completion], answer=[GOLD["answer"]]) == [1.0]


def test_strange_strings_score_without_raising():
    for text in ["", "\x00", "Answer:", "[", "]" * 1000, "Answer: [" + "1," * 100_000, "\ud800", "</think>" * 3]:
        assert 0.0 <= score_answer(text, GOLD) <= 1.0


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda: reward(completions="Ann Lee", answer=["Ann Lee"]), "completions is a str; give a list"),
        (lambda: reward(completions=["a", "b"], answer=["a"]), "2 completions, 1 answers"),
        (lambda: reward(completions=["a"], answer=["a"], metadata=[{}, {}]), "1 completions, 1 answers, 2 metadata"),
        (lambda: reward(completions=["a"], answer="a"), "answer is a str"),
    ],
)
def test_columns_that_do_not_line_up_are_one_line(call, says):
    with pytest.raises(ValueError) as error:
        call()
    assert says in str(error.value) and "\n" not in str(error.value)


def test_higher_curriculum_levels_need_more_hops_on_average():
    means = []
    for level in curriculum():
        items = list(PhantomWikiDataset.level(level.level, seed=1, size=100))
        means.append(sum(item["metadata"]["hops"] for item in items) / len(items))
        assert all(
            len(item["metadata"]["documents"]) == len(item["metadata"]["required_titles"]) + level.distractors
            for item in items
            if level.distractors
        )
    assert means == sorted(means) and means[-1] > means[0] + 2
    with pytest.raises(ConfigError, match="curriculum level 9 does not exist"):
        PhantomWikiDataset.level(9)


RIGHT = "give {'answer': 'Ann Lee, Bo Li'}"


@pytest.mark.parametrize(
    "entry, says",
    [
        ({}, "score_answer's entry has no 'answer' (nor metadata['answers'])"),
        ({"metadata": {"hops": 2}}, "score_answer's entry has no 'answer' (nor metadata['answers'])"),
        (None, "score_answer's entry is None, not a mapping"),
        ("Ann Lee", "score_answer's entry is a str, not a mapping"),
        ({"answer": None}, "score_answer's entry's 'answer' is None, not a list of names"),
        ({"answer": ["Ann Lee", 3]}, "score_answer's entry's 'answer' is a list with a non-string in it"),
        ({"answer": "Ann Lee", "metadata": ["Ann Lee"]}, "score_answer's entry's metadata is a list, not a mapping"),
        ({"metadata": {"answers": "Ann Lee"}}, "score_answer's entry's metadata['answers'] is a str, not a list"),
    ],
    ids=["empty", "no answer", "None", "a string", "answer None", "a number", "metadata a list", "answers a string"],
)
def test_a_malformed_entry_is_refused_in_one_line_that_says_what_would_be_right(entry, says):
    for answer in ("Ann Lee", None):
        with pytest.raises(ValueError) as error:
            score_answer(answer, entry)
        assert str(error.value).startswith(says) and RIGHT in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    "columns, says",
    [
        ({"answer": ["Ann Lee", None]}, "reward's row 1's 'answer' is None, not a list of names"),
        ({"answer": ["Ann Lee", ["Bo Li", 7]]}, "reward's row 1's 'answer' is a list with a non-string in it"),
        ({"answer": ["a", "b"], "metadata": [{}, {"answers": "Bo Li"}]}, "reward's row 1's metadata['answers'] is a"),
    ],
)
def test_a_reward_row_without_a_gold_answer_is_refused_in_one_line_naming_the_row(columns, says):
    with pytest.raises(ValueError) as error:
        reward(["Ann Lee", "Bo Li"], **columns)
    assert str(error.value).startswith(says) and RIGHT in str(error.value) and "\n" not in str(error.value)


def test_gold_answers_in_every_accepted_shape_score_alike():
    for entry in (
        {"answer": "Ann Lee, Bo Li"},
        {"answer": ["Ann Lee", "Bo Li"]},
        {"answer": ("Ann Lee", "Bo Li")},
        {"answer": "ignored", "metadata": {"answers": ["Ann Lee", "Bo Li"]}},
        {"metadata": {"answers": ("Ann Lee", "Bo Li")}},
        {"answer": "Ann Lee, Bo Li", "metadata": None},
    ):
        assert score_answer("Ann Lee, Bo Li", entry) == 1.0 and score_answer("Ann Lee", entry) == pytest.approx(2 / 3)
