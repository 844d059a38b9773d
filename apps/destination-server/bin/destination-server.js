#!/usr/bin/env node
import "../dist/launch.js";
