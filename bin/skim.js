#!/usr/bin/env node
import { launch } from '../dist/cli/launch.js';

await launch();
