# ParamScope: the Streamlit app in a container, following Streamlit's Docker recipe.
#   docker build -t paramscope .
#   docker run --rm -p 8501:8501 paramscope      # then open http://localhost:8501
FROM python:3.11-slim

# curl for the health check; nothing else from the system is needed (torch comes as its CPU wheel).
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A non-root user owns the app.
RUN useradd --create-home --uid 1000 app
WORKDIR /home/app/paramscope

# Dependencies first (requirements.txt installs the package itself with `-e .[app,transformers]`, torch from its CPU
# index, so the sources it needs come along); the rest of the app after, so that editing app.py does not reinstall
# everything.
COPY --chown=app:app pyproject.toml README.md requirements.txt ./
COPY --chown=app:app src ./src
COPY --chown=app:app presets ./presets
RUN pip install -r requirements.txt
COPY --chown=app:app app.py ./
COPY --chown=app:app .streamlit ./.streamlit

USER app
EXPOSE 8501
HEALTHCHECK CMD curl --fail http://localhost:8501/_stcore/health
ENTRYPOINT ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
