"""Publishing to the Hugging Face Hub: bounded Parquet shards (plain or sealed), the card, the manifest, the upload,
and reading a release back.  Plain Python and `huggingface_hub`; `datasets` only for the features of the schema.
"""
