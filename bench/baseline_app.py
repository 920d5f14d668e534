"""The cold-start baseline: the smallest FastAPI app behind Mangum, packaged and imported as a function
is (bench/cold_start_packaged.py), so the ratio is the cost of what Persona Rails adds on top."""

from fastapi import FastAPI
from mangum import Mangum

app = FastAPI()


@app.post("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


lambda_handler = Mangum(app, lifespan="off")
