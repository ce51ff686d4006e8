"""Structured outputs end to end: the openai SDK → `shoal serve` → `shoal worker --backend
llama` on the generated random-weight test model. Its text is noise, so every answer here is
valid JSON of its schema only because the worker's grammar leaves nothing else to write.
"""

from __future__ import annotations

import json
from typing import List, Literal, Optional

import jsonschema
import openai
import pydantic
import pytest

# test_llama's module fixtures: a gateway and a `--backend llama` worker on the test model.
from test_llama import MODEL, gguf, llama_gateway, llama_worker  # noqa: F401

# An object with a string, an integer, an enum array, a nested object, a nullable field and a
# `$ref`; strings are bounded so that noise cannot write one without end.
PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 24},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "colors": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 3},
        "address": {"$ref": "#/$defs/Address"},
        "nickname": {"anyOf": [{"type": "string", "maxLength": 12}, {"type": "null"}]},
    },
    "required": ["name", "age", "colors", "address", "nickname"],
    "additionalProperties": False,
    "$defs": {
        "Address": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 16},
                           "since": {"type": "string", "format": "date"}},
            "required": ["city", "since"],
            "additionalProperties": False,
        }
    },
}

VALIDATOR = jsonschema.Draft202012Validator(PERSON, format_checker=jsonschema.FormatChecker())


def person_format() -> dict:
    return {"type": "json_schema", "json_schema": {"name": "person", "strict": True, "schema": PERSON}}


@pytest.fixture
def client(llama_gateway, llama_worker):
    account = llama_gateway.new_account(credits=100_000)
    c = llama_gateway.client(account.key, timeout=120)
    yield c
    c.close()


def answer(client, stream: bool, **kwargs) -> tuple:
    """(content, finish_reason) of one request, streamed or not."""
    args = dict(model=MODEL, messages=[{"role": "user", "content": "Describe a person."}],
                max_tokens=1500)
    args.update(kwargs)
    if not stream:
        r = client.chat.completions.create(**args)
        return r.choices[0].message.content, r.choices[0].finish_reason
    content, finish = "", None
    for chunk in client.chat.completions.create(stream=True, **args):
        for choice in chunk.choices:
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
    return content, finish


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_nested_schema_holds_on_noise(client, stream):
    for seed in range(20):
        content, finish = answer(client, stream, response_format=person_format(), seed=seed)
        assert finish == "stop", content
        VALIDATOR.validate(json.loads(content))


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_json_object_is_an_object(client, stream):
    answered = 0
    for seed in range(20):
        content, finish = answer(client, stream, response_format={"type": "json_object"}, seed=seed,
                                 max_tokens=3000)
        if finish == "length":
            continue  # noise may nest past the limit; `length` says the JSON is cut
        assert finish == "stop"
        assert isinstance(json.loads(content), dict), content
        answered += 1
    assert answered >= 10


def test_the_sdk_parses_into_a_pydantic_model(client):
    class Address(pydantic.BaseModel):
        city: str = pydantic.Field(max_length=16)

    class Person(pydantic.BaseModel):
        name: str = pydantic.Field(max_length=24)
        age: int = pydantic.Field(ge=0, le=120)
        colors: List[Literal["red", "green", "blue"]] = pydantic.Field(max_length=3)
        address: Address
        nickname: Optional[str] = pydantic.Field(max_length=12)

    for seed in range(3):
        r = client.chat.completions.parse(model=MODEL, messages=[{"role": "user", "content": "hi"}],
                                          response_format=Person, seed=seed, max_tokens=1500)
        person = r.choices[0].message.parsed
        assert isinstance(person, Person)
        assert 0 <= person.age <= 120


def test_an_unsupported_keyword_is_400_naming_it(client):
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}}
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "x"}],
            response_format={"type": "json_schema", "json_schema": {"name": "c", "schema": schema}})
    error = e.value.response.json()["error"]
    assert error["param"] == "response_format.json_schema.schema.properties[0].pattern"
    assert "`pattern`" in error["message"]


def test_a_cut_answer_ends_with_length(client):
    content, finish = answer(client, False, response_format=person_format(), max_tokens=5)
    assert finish == "length"
    with pytest.raises(ValueError):
        json.loads(content)
