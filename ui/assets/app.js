// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit.
var Fe=globalThis,ot=n=>n,ke=Fe.trustedTypes,at=ke?ke.createPolicy("lit-html",{createHTML:n=>n}):void 0,Ue="$lit$",j=`lit$${Math.random().toFixed(9).slice(2)}$`,je="?"+j,us=`<${je}>`,J=document,ce=()=>J.createComment(""),de=n=>n===null||typeof n!="object"&&typeof n!="function",Ve=Array.isArray,ht=n=>Ve(n)||typeof n?.[Symbol.iterator]=="function",We=`[ 	
\f\r]`,le=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,lt=/-->/g,ct=/>/g,z=RegExp(`>|${We}(?:([^\\s"'>=/]+)(${We}*=${We}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),dt=/'/g,ut=/"/g,mt=/^(?:script|style|textarea|title)$/i,Be=n=>(e,...t)=>({_$litType$:n,strings:e,values:t}),c=Be(1),pe=Be(2),Os=Be(3),X=Symbol.for("lit-noChange"),y=Symbol.for("lit-nothing"),pt=new WeakMap,Q=J.createTreeWalker(J,129);function gt(n,e){if(!Ve(n)||!n.hasOwnProperty("raw"))throw Error("invalid template strings array");return at!==void 0?at.createHTML(e):e}var ft=(n,e)=>{let t=n.length-1,i=[],r,o=e===2?"<svg>":e===3?"<math>":"",l=le;for(let f=0;f<t;f++){let u=n[f],h,p,m=-1,b=0;for(;b<u.length&&(l.lastIndex=b,p=l.exec(u),p!==null);)b=l.lastIndex,l===le?p[1]==="!--"?l=lt:p[1]!==void 0?l=ct:p[2]!==void 0?(mt.test(p[2])&&(r=RegExp("</"+p[2],"g")),l=z):p[3]!==void 0&&(l=z):l===z?p[0]===">"?(l=r??le,m=-1):p[1]===void 0?m=-2:(m=l.lastIndex-p[2].length,h=p[1],l=p[3]===void 0?z:p[3]==='"'?ut:dt):l===ut||l===dt?l=z:l===lt||l===ct?l=le:(l=z,r=void 0);let w=l===z&&n[f+1].startsWith("/>")?" ":"";o+=l===le?u+us:m>=0?(i.push(h),u.slice(0,m)+Ue+u.slice(m)+j+w):u+j+(m===-2?f:w)}return[gt(n,o+(n[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),i]},ue=class n{constructor({strings:e,_$litType$:t},i){let r;this.parts=[];let o=0,l=0,f=e.length-1,u=this.parts,[h,p]=ft(e,t);if(this.el=n.createElement(h,i),Q.currentNode=this.el.content,t===2||t===3){let m=this.el.content.firstChild;m.replaceWith(...m.childNodes)}for(;(r=Q.nextNode())!==null&&u.length<f;){if(r.nodeType===1){if(r.hasAttributes())for(let m of r.getAttributeNames())if(m.endsWith(Ue)){let b=p[l++],w=r.getAttribute(m).split(j),k=/([.?@])?(.*)/.exec(b);u.push({type:1,index:o,name:k[2],strings:w,ctor:k[1]==="."?Se:k[1]==="?"?Te:k[1]==="@"?Ae:ee}),r.removeAttribute(m)}else m.startsWith(j)&&(u.push({type:6,index:o}),r.removeAttribute(m));if(mt.test(r.tagName)){let m=r.textContent.split(j),b=m.length-1;if(b>0){r.textContent=ke?ke.emptyScript:"";for(let w=0;w<b;w++)r.append(m[w],ce()),Q.nextNode(),u.push({type:2,index:++o});r.append(m[b],ce())}}}else if(r.nodeType===8)if(r.data===je)u.push({type:2,index:o});else{let m=-1;for(;(m=r.data.indexOf(j,m+1))!==-1;)u.push({type:7,index:o}),m+=j.length-1}o++}}static createElement(e,t){let i=J.createElement("template");return i.innerHTML=e,i}};function Z(n,e,t=n,i){if(e===X)return e;let r=i!==void 0?t._$Co?.[i]:t._$Cl,o=de(e)?void 0:e._$litDirective$;return r?.constructor!==o&&(r?._$AO?.(!1),o===void 0?r=void 0:(r=new o(n),r._$AT(n,t,i)),i!==void 0?(t._$Co??=[])[i]=r:t._$Cl=r),r!==void 0&&(e=Z(n,r._$AS(n,e.values),r,i)),e}var xe=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:i}=this._$AD,r=(e?.creationScope??J).importNode(t,!0);Q.currentNode=r;let o=Q.nextNode(),l=0,f=0,u=i[0];for(;u!==void 0;){if(l===u.index){let h;u.type===2?h=new ie(o,o.nextSibling,this,e):u.type===1?h=new u.ctor(o,u.name,u.strings,this,e):u.type===6&&(h=new Ee(o,this,e)),this._$AV.push(h),u=i[++f]}l!==u?.index&&(o=Q.nextNode(),l++)}return Q.currentNode=J,r}p(e){let t=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(e,i,t),t+=i.strings.length-2):i._$AI(e[t])),t++}},ie=class n{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,i,r){this.type=2,this._$AH=y,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=i,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=Z(this,e,t),de(e)?e===y||e==null||e===""?(this._$AH!==y&&this._$AR(),this._$AH=y):e!==this._$AH&&e!==X&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):ht(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==y&&de(this._$AH)?this._$AA.nextSibling.data=e:this.T(J.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:i}=e,r=typeof i=="number"?this._$AC(e):(i.el===void 0&&(i.el=ue.createElement(gt(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===r)this._$AH.p(t);else{let o=new xe(r,this),l=o.u(this.options);o.p(t),this.T(l),this._$AH=o}}_$AC(e){let t=pt.get(e.strings);return t===void 0&&pt.set(e.strings,t=new ue(e)),t}k(e){Ve(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,i,r=0;for(let o of e)r===t.length?t.push(i=new n(this.O(ce()),this.O(ce()),this,this.options)):i=t[r],i._$AI(o),r++;r<t.length&&(this._$AR(i&&i._$AB.nextSibling,r),t.length=r)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let i=ot(e).nextSibling;ot(e).remove(),e=i}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},ee=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,i,r,o){this.type=1,this._$AH=y,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=o,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=y}_$AI(e,t=this,i,r){let o=this.strings,l=!1;if(o===void 0)e=Z(this,e,t,0),l=!de(e)||e!==this._$AH&&e!==X,l&&(this._$AH=e);else{let f=e,u,h;for(e=o[0],u=0;u<o.length-1;u++)h=Z(this,f[i+u],t,u),h===X&&(h=this._$AH[u]),l||=!de(h)||h!==this._$AH[u],h===y?e=y:e!==y&&(e+=(h??"")+o[u+1]),this._$AH[u]=h}l&&!r&&this.j(e)}j(e){e===y?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},Se=class extends ee{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===y?void 0:e}},Te=class extends ee{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==y)}},Ae=class extends ee{constructor(e,t,i,r,o){super(e,t,i,r,o),this.type=5}_$AI(e,t=this){if((e=Z(this,e,t,0)??y)===X)return;let i=this._$AH,r=e===y&&i!==y||e.capture!==i.capture||e.once!==i.once||e.passive!==i.passive,o=e!==y&&(i===y||r);r&&this.element.removeEventListener(this.name,this,i),o&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},Ee=class{constructor(e,t,i){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(e){Z(this,e)}},$t={M:Ue,P:j,A:je,C:1,L:ft,R:xe,D:ht,V:Z,I:ie,H:ee,N:Te,U:Ae,B:Se,F:Ee},ps=Fe.litHtmlPolyfillSupport;ps?.(ue,ie),(Fe.litHtmlVersions??=[]).push("3.3.3");var te=(n,e,t)=>{let i=t?.renderBefore??e,r=i._$litPart$;if(r===void 0){let o=t?.renderBefore??null;i._$litPart$=r=new ie(e.insertBefore(ce(),o),o,void 0,t??{})}return r._$AI(n),r};var yt={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},vt=n=>(...e)=>({_$litDirective$:n,values:e}),Ie=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,i){this._$Ct=e,this._$AM=t,this._$Ci=i}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:hs}=$t,bt=n=>n;var wt=()=>document.createComment(""),oe=(n,e,t)=>{let i=n._$AA.parentNode,r=e===void 0?n._$AB:e._$AA;if(t===void 0){let o=i.insertBefore(wt(),r),l=i.insertBefore(wt(),r);t=new hs(o,l,n,n.options)}else{let o=t._$AB.nextSibling,l=t._$AM,f=l!==n;if(f){let u;t._$AQ?.(n),t._$AM=n,t._$AP!==void 0&&(u=n._$AU)!==l._$AU&&t._$AP(u)}if(o!==r||f){let u=t._$AA;for(;u!==o;){let h=bt(u).nextSibling;bt(i).insertBefore(u,r),u=h}}}return t},G=(n,e,t=n)=>(n._$AI(e,t),n),ms={},_t=(n,e=ms)=>n._$AH=e,kt=n=>n._$AH,Re=n=>{n._$AR(),n._$AA.remove()};var xt=(n,e,t)=>{let i=new Map;for(let r=e;r<=t;r++)i.set(n[r],r);return i},he=vt(class extends Ie{constructor(n){if(super(n),n.type!==yt.CHILD)throw Error("repeat() can only be used in text expressions")}dt(n,e,t){let i;t===void 0?t=e:e!==void 0&&(i=e);let r=[],o=[],l=0;for(let f of n)r[l]=i?i(f,l):l,o[l]=t(f,l),l++;return{values:o,keys:r}}render(n,e,t){return this.dt(n,e,t).values}update(n,[e,t,i]){let r=kt(n),{values:o,keys:l}=this.dt(e,t,i);if(!Array.isArray(r))return this.ut=l,o;let f=this.ut??=[],u=[],h,p,m=0,b=r.length-1,w=0,k=o.length-1;for(;m<=b&&w<=k;)if(r[m]===null)m++;else if(r[b]===null)b--;else if(f[m]===l[w])u[w]=G(r[m],o[w]),m++,w++;else if(f[b]===l[k])u[k]=G(r[b],o[k]),b--,k--;else if(f[m]===l[k])u[k]=G(r[m],o[k]),oe(n,u[k+1],r[m]),m++,k--;else if(f[b]===l[w])u[w]=G(r[b],o[w]),oe(n,r[m],r[b]),b--,w++;else if(h===void 0&&(h=xt(l,w,k),p=xt(f,m,b)),h.has(f[m]))if(h.has(f[b])){let R=p.get(l[w]),g=R!==void 0?r[R]:null;if(g===null){let v=oe(n,r[m]);G(v,o[w]),u[w]=v}else u[w]=G(g,o[w]),oe(n,r[m],g),r[R]=null;w++}else Re(r[b]),b--;else Re(r[m]),m++;for(;w<=k;){let R=oe(n,u[k+1]);G(R,o[w]),u[w++]=R}for(;m<=b;){let R=r[m++];R!==null&&Re(R)}return this.ut=l,_t(n,u),X}});(!globalThis.EventTarget||!globalThis.Event)&&console.error(`
  PartySocket requires a global 'EventTarget' class to be available!
  You can polyfill this global by adding this to your code before any partysocket imports: 
  
  \`\`\`
  import 'partysocket/event-target-polyfill';
  \`\`\`
  Please file an issue at https://github.com/partykit/partykit if you're still having trouble.
`);var Tt=class extends Event{message;error;constructor(n,e){super("error",e),this.message=n.message,this.error=n}},At=class extends Event{code;reason;wasClean=!0;constructor(n=1e3,e="",t){super("close",t),this.code=n,this.reason=e}},Ge={Event,ErrorEvent:Tt,CloseEvent:At};function gs(n,e){if(!n)throw new Error(e)}function fs(n){return new n.constructor(n.type,n)}function $s(n){return"data"in n?new MessageEvent(n.type,n):"code"in n||"reason"in n?new At(n.code||1999,n.reason||"unknown reason",n):"error"in n?new Tt(n.error,n):new Event(n.type,n)}var ys=typeof process<"u"&&typeof process.versions?.node<"u",vs=typeof navigator<"u"&&navigator.product==="ReactNative",Ce=ys||vs?$s:fs,se={maxReconnectionDelay:1e4,minReconnectionDelay:3e3,minUptime:5e3,reconnectionDelayGrowFactor:1.3,connectionTimeout:4e3,maxRetries:Number.POSITIVE_INFINITY,maxEnqueuedMessages:Number.POSITIVE_INFINITY,startClosed:!1,debug:!1},St=!1;function bs(){}var Et=class K extends EventTarget{_ws;_retryCount=-1;_uptimeTimeout;_connectTimeout;_shouldReconnect=!0;_connectLock=!1;_binaryType="blob";_closeCalled=!1;_didWarnAboutClosedSend=!1;_messageQueue=[];_debugLogger=console.log.bind(console);_url;_protocols;_options;constructor(e,t,i={}){super(),this._url=e,this._protocols=t,this._options=i,this._options.startClosed&&(this._shouldReconnect=!1),this._options.debugLogger&&(this._debugLogger=this._options.debugLogger),this._connect()}static get CONNECTING(){return 0}static get OPEN(){return 1}static get CLOSING(){return 2}static get CLOSED(){return 3}get CONNECTING(){return K.CONNECTING}get OPEN(){return K.OPEN}get CLOSING(){return K.CLOSING}get CLOSED(){return K.CLOSED}get binaryType(){return this._ws?this._ws.binaryType:this._binaryType}set binaryType(e){this._binaryType=e,this._ws&&(this._ws.binaryType=e)}get retryCount(){return Math.max(this._retryCount,0)}get bufferedAmount(){return this._messageQueue.reduce((e,t)=>(typeof t=="string"?e+=t.length:t instanceof Blob?e+=t.size:e+=t.byteLength,e),0)+(this._ws?this._ws.bufferedAmount:0)}get extensions(){return this._ws?this._ws.extensions:""}get protocol(){return this._ws?this._ws.protocol:""}get readyState(){return this._closeCalled?K.CLOSED:this._ws?this._ws.readyState:this._options.startClosed?K.CLOSED:K.CONNECTING}get url(){return this._ws?this._ws.url:""}get shouldReconnect(){return this._shouldReconnect}onclose=null;onerror=null;onmessage=null;onopen=null;close(e=1e3,t){if(this._closeCalled=!0,this._shouldReconnect=!1,this._clearTimeouts(),!this._ws){this._debug("close enqueued: no ws instance");return}if(this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING){this._debug("close: already closing or closed");return}this._disconnect(e,t)}reconnect(e,t){this._shouldReconnect=!0,this._closeCalled=!1,this._didWarnAboutClosedSend=!1,this._retryCount=-1,!this._ws||this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING?this._connect():(this._disconnect(e,t),this._connect())}send(e){if(this._ws&&this._ws.readyState===this.OPEN)return this._debug("send",e),this._ws.send(e),!0;this._closeCalled&&!this._didWarnAboutClosedSend&&(this._didWarnAboutClosedSend=!0,console.warn("ReconnectingWebSocket: send() was called after close(). The message has been buffered, but it will only be delivered if reconnect() is called on this socket. If this socket has been discarded, the message is lost — this usually means a stale socket reference is being used."));let{maxEnqueuedMessages:t=se.maxEnqueuedMessages}=this._options;return this._messageQueue.length<t&&(this._debug("enqueue",e),this._messageQueue.push(e)),!1}drainQueuedMessages(){let e=this._messageQueue;return this._messageQueue=[],e}_debug(...e){this._options.debug&&this._debugLogger("RWS>",...e)}_getNextDelay(){let{reconnectionDelayGrowFactor:e=se.reconnectionDelayGrowFactor,minReconnectionDelay:t=se.minReconnectionDelay,maxReconnectionDelay:i=se.maxReconnectionDelay}=this._options,r=0;return this._retryCount>0&&(r=t*e**(this._retryCount-1),r>i&&(r=i)),this._debug("next delay",r),r}_wait(){return new Promise(e=>{setTimeout(e,this._getNextDelay())})}_getNextProtocols(e){if(!e)return Promise.resolve(null);if(typeof e=="string"||Array.isArray(e))return Promise.resolve(e);if(typeof e=="function"){let t=e();if(!t)return Promise.resolve(null);if(typeof t=="string"||Array.isArray(t))return Promise.resolve(t);if(t.then)return t}throw Error("Invalid protocols")}_getNextUrl(e){if(typeof e=="string")return Promise.resolve(e);if(typeof e=="function"){let t=e();if(typeof t=="string")return Promise.resolve(t);if(t.then)return t}throw Error("Invalid URL")}_connect(){if(this._connectLock||!this._shouldReconnect)return;this._connectLock=!0;let{maxRetries:e=se.maxRetries,connectionTimeout:t=se.connectionTimeout}=this._options;if(this._retryCount>=e){this._debug("max retries reached",this._retryCount,">=",e),this._connectLock=!1;return}this._retryCount++,this._debug("connect",this._retryCount),this._removeListeners(),this._wait().then(()=>Promise.all([this._getNextUrl(this._url),this._getNextProtocols(this._protocols||null)])).then(([i,r])=>{if(this._closeCalled){this._connectLock=!1;return}!this._options.WebSocket&&typeof WebSocket>"u"&&!St&&(console.error(`‼️ No WebSocket implementation available. You should define options.WebSocket. 

For example, if you're using node.js, run \`npm install ws\`, and then in your code:

import PartySocket from 'partysocket';
import WS from 'ws';

const partysocket = new PartySocket({
  host: "127.0.0.1:1999",
  room: "test-room",
  WebSocket: WS
});

`),St=!0);let o=this._options.WebSocket||WebSocket;this._debug("connect",{url:i,protocols:r}),this._ws=r?new o(i,r):new o(i),this._ws.binaryType=this._binaryType,this._connectLock=!1,this._addListeners(),this._connectTimeout=setTimeout(()=>this._handleTimeout(),t)}).catch(i=>{this._connectLock=!1,this._handleError(new Ge.ErrorEvent(Error(i.message),this))})}_handleTimeout(){this._debug("timeout event"),this._handleError(new Ge.ErrorEvent(Error("TIMEOUT"),this))}_disconnect(e=1e3,t){if(this._clearTimeouts(),!!this._ws){this._removeListeners();try{(this._ws.readyState===this.OPEN||this._ws.readyState===this.CONNECTING)&&this._ws.close(e,t),this._handleClose(new Ge.CloseEvent(e,t,this))}catch{}}}_acceptOpen(){this._debug("accept open"),this._retryCount=0}_handleOpen=e=>{this._debug("open event");let{minUptime:t=se.minUptime}=this._options;clearTimeout(this._connectTimeout),this._uptimeTimeout=setTimeout(()=>this._acceptOpen(),t),gs(this._ws,"WebSocket is not defined"),this._ws.binaryType=this._binaryType,this._messageQueue.forEach(i=>{this._ws?.send(i)}),this._messageQueue=[],this.onopen&&this.onopen(e),this.dispatchEvent(Ce(e))};_handleMessage=e=>{this._debug("message event"),this.onmessage&&this.onmessage(e),this.dispatchEvent(Ce(e))};_handleError=e=>{this._debug("error event",e.message),this._disconnect(void 0,e.message==="TIMEOUT"?"timeout":void 0),this.onerror&&this.onerror(e),this._debug("exec error listeners"),this.dispatchEvent(Ce(e)),this._connect()};_handleClose=e=>{this._debug("close event"),this._clearTimeouts(),this._options.shouldReconnectOnClose&&!this._options.shouldReconnectOnClose(e)&&(this._shouldReconnect=!1),this._shouldReconnect&&this._connect(),this.onclose&&this.onclose(e),this.dispatchEvent(Ce(e))};_removeListeners(){this._ws&&(this._debug("removeListeners"),this._ws.removeEventListener("open",this._handleOpen),this._ws.removeEventListener("close",this._handleClose),this._ws.removeEventListener("message",this._handleMessage),this._ws.removeEventListener("error",this._handleError),this._ws.addEventListener("error",bs))}_addListeners(){this._ws&&(this._debug("addListeners"),this._ws.addEventListener("open",this._handleOpen),this._ws.addEventListener("close",this._handleClose),this._ws.addEventListener("message",this._handleMessage),this._ws.addEventListener("error",this._handleError))}_clearTimeouts(){clearTimeout(this._connectTimeout),clearTimeout(this._uptimeTimeout)}};var It={not_configured:503,unauthorized:401,forbidden:403,rate_limited:429,payload_too_large:413,not_found:404,method_not_allowed:405,bad_request:400,conflict:409,internal:500};var ws=It,M=class extends Error{status;code;constructor(e,t,i,r){super(i,r),this.name="HighwaterError",this.status=e,this.code=t}},_s=7e3,ks=2e4,ge=class{baseUrl;#t;#r;#s;constructor(e){this.baseUrl=e.baseUrl.replace(/\/+$/,""),this.#t=e.token;let t=e.fetch??globalThis.fetch;this.#r=(i,r)=>t(i,r),this.#s=e.WebSocket}createSession(e={}){return this.#e("POST","/v1/sessions",e)}listSessions(e={}){return this.#e("GET",`/v1/sessions${me(e)}`)}getSession(e){return this.#e("GET",C(e))}patchSession(e,t){return this.#e("PATCH",C(e),t)}sendMessage(e,t,i=Rt()){return this.#e("POST",`${C(e)}/messages`,{text:t,idempotencyKey:i})}stop(e){return this.#e("POST",`${C(e)}/stop`)}decideApproval(e,t,i,r={}){return this.#e("POST",`${C(e)}/approvals/${encodeURIComponent(t)}`,{decision:i,...r})}dismissRecoveryNotice(e,t){return this.#e("POST",`${C(e)}/recovery-notice/dismiss`,{atSeq:t})}events(e,t=0,i=500){return this.#e("GET",`${C(e)}/events${me({after:t,limit:i})}`)}transcript(e,t={}){return this.#e("GET",`${C(e)}/transcript${me(t)}`)}context(e){return this.#e("GET",`${C(e)}/context`)}verify(e){return this.#e("GET",`${C(e)}/verify`)}async exportNdjson(e){return(await this.#n("GET",`${C(e)}/export`)).text()}files(e,t={}){return this.#e("GET",`${C(e)}/files${me(t)}`)}providers(){return this.#e("GET","/v1/providers")}async file(e,t){let i=t.split("/").map(encodeURIComponent).join("/");return(await this.#n("GET",`${C(e)}/files/${i}`)).text()}async archive(e,t,i={}){return(await this.#n("GET",`${C(e)}/archive/${t}${me(i)}`)).text()}inbox(e,t){return this.#e("POST",`${C(e)}/inbox`,t)}fork(e,t){return this.#e("POST",`${C(e)}/fork`,{throughSeq:t})}createTrigger(e,t){return this.#e("POST",`${C(e)}/triggers`,t)}triggers(e){return this.#e("GET",`${C(e)}/triggers`)}async deleteTrigger(e,t){await this.#n("DELETE",`${C(e)}/triggers/${encodeURIComponent(t)}`)}runs(e){return this.#e("GET",`${C(e)}/runs`)}resume(e,t,i){return this.#e("POST",`${C(e)}/runs/${encodeURIComponent(t)}/resume`,i)}createTicket(e){return this.#e("POST",`${C(e)}/tickets`)}async#e(e,t,i){return await(await this.#n(e,t,i)).json()}async#n(e,t,i){let r={};this.#t&&(r.authorization=`Bearer ${this.#t}`),i!==void 0&&(r["content-type"]="application/json");let o;try{o=await this.#r(`${this.baseUrl}${t}`,{method:e,headers:r,...i===void 0?{}:{body:JSON.stringify(i)}})}catch(h){throw new M(0,"network_error",`${e} ${t}: ${String(h)}`,{cause:h})}if(o.ok)return o;let l=await o.text().catch(()=>""),f=`http_${o.status}`,u=l.slice(0,500)||o.statusText;try{let h=JSON.parse(l);typeof h.error?.code=="string"&&(f=h.error.code),typeof h.error?.message=="string"&&(u=h.error.message)}catch{}throw new M(o.status,f,u)}connect(e,t){let i=this.#s??globalThis.WebSocket;if(!i)throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");let r=t.auth??(this.#s&&this.#t?"header":"ticket"),o=t.pingEveryMs??_s,l=t.silenceMs??ks,f=this.baseUrl.replace(/^http/,"ws"),u=this.#t,h=t.after??0,p="connecting",m=!1,b=!1,w=Date.now(),k=0,R=t.ticket,g=new Map,v=T=>{T!==p&&(p=T,t.onState?.(T))},N=()=>{for(let T of g.values())T.reject(new M(0,"disconnected","the socket closed before an answer"));g.clear()},O=()=>{N(),b||v(m?"reconnecting":"connecting")},F=async()=>{let T=`${f}/v1/sessions/${encodeURIComponent(e)}/ws?after=${h}`;if(r==="ticket"){let q=R;if(R=void 0,!q)try{q=(await this.createTicket(e)).ticket}catch(A){let P=A;throw[401,403,404,503].includes(P.status)&&U(P),A}T+=`&ticket=${encodeURIComponent(q)}`}return T},_=r==="header"&&u?function(q){return new i(q,{headers:{authorization:`Bearer ${u}`}})}:i,$=new Et(F,null,{WebSocket:_,minReconnectionDelay:t.minDelayMs??250,maxReconnectionDelay:t.maxDelayMs??1e4,reconnectionDelayGrowFactor:2,connectionTimeout:1e4}),U=T=>{b||(b=!0,clearInterval(D),$.close(1e3,"gave up"),N(),v("closed"),t.onFatal?.(T))},W=T=>{w=Date.now();let q=typeof T=="string"?T:new TextDecoder().decode(T),A;try{A=JSON.parse(q)}catch{return}if(A.type!=="pong"){if(A.type==="event"){let P=A.event.seq;if(P<=h)return;if(P!==h+1){O(),$.reconnect(4e3,"gap");return}h=P}else if(A.type==="ready")m=!0,v("open");else if((A.type==="ack"||A.type==="error")&&A.id!==void 0&&g.has(A.id)){let P=g.get(A.id);g.delete(A.id),A.type==="ack"?P.resolve(A.result):P.reject(new M(ws[A.error.code]??0,A.error.code,A.error.message));return}t.onFrame(A)}};$.addEventListener("open",()=>{w=Date.now()}),$.addEventListener("message",T=>W(T.data)),$.addEventListener("close",O);let D=setInterval(()=>{b||$.readyState!==1||(Date.now()-w>l?(O(),$.reconnect(4001,"silent")):$.send('{"type":"ping"}'))},o);return{get lastSeq(){return h},get state(){return p},get retries(){return Math.max(0,$.retryCount)},send(T){if($.readyState!==1||p!=="open")return Promise.reject(new M(0,"disconnected","the socket is not open"));let q=`c${++k}`,A=T.type==="message"&&!T.idempotencyKey?{...T,idempotencyKey:Rt()}:T;return new Promise((P,ye)=>{g.set(q,{resolve:P,reject:ye}),$.send(JSON.stringify({...A,id:q}))})},close(){b||(b=!0,clearInterval(D),N(),$.close(1e3,"client closed"),v("closed"))}}}};function Rt(){let n=crypto.getRandomValues(new Uint8Array(16));return`k-${Array.from(n,e=>e.toString(16).padStart(2,"0")).join("")}`}function C(n){return`/v1/sessions/${encodeURIComponent(n)}`}function me(n){let e=new URLSearchParams;for(let[i,r]of Object.entries(n))r!==void 0&&e.set(i,String(r));let t=e.toString();return t?`?${t}`:""}var qe=class{items=[];spans=[];marks=[];lastSeq=0;#t=new Map;#r=new Map;#s=new Map;#e=null;add(e){if(e.seq<=this.lastSeq)return!1;this.lastSeq=e.seq;let t=Date.parse(e.at),i=e.content,r=e.actions??{},o=r.stateDelta??{},l=p=>this.items.push({...p,rev:0,at:e.at});if(i?.type==="text"&&(e.author==="user"||e.author==="model"))l({kind:"message",seq:e.seq,role:e.author==="user"?"user":"assistant",text:i.text,...e.source?{source:e.source}:{},...e.turnId?{turnId:e.turnId}:{}}),e.author==="user"&&e.turnId&&!this.#e&&(this.#e={kind:"turn",key:`turn:${e.turnId}`,label:i.text.slice(0,80),start:t,seq:e.seq},this.spans.push(this.#e));else if(i?.type==="thinking")l({kind:"thinking",seq:e.seq,text:i.text});else if(i?.type==="functionCall"){let p={kind:"tool",seq:e.seq,callId:i.callId,tool:i.name,args:i.args,state:"pending",rev:0,at:e.at};this.#t.set(i.callId,p),this.#r.set(i.callId,i.name),this.items.push(p)}else i?.type==="error"&&(l({kind:"error",seq:e.seq,code:i.code,message:i.message}),this.marks.push({kind:"error",at:t,label:`${i.code}: ${i.message}`,seq:e.seq}));if(r.permissionRequest){let p=this.#t.get(r.permissionRequest.callId);p&&this.#n(p,{state:"waiting_approval",requestId:r.permissionRequest.requestId}),this.#i({kind:"approval",key:`approval:${r.permissionRequest.requestId}`,label:`approval: ${r.permissionRequest.tool}`,start:t,seq:e.seq})}if(r.permissionDecision){let p=r.permissionDecision.requestId;if(r.permissionDecision.decision==="approve")for(let m of this.#t.values())m.requestId===p&&m.state==="waiting_approval"&&this.#n(m,{state:"pending"});this.#o(`approval:${p}`,t,r.permissionDecision.decision)}if(r.toolDispatch){let p=this.#t.get(r.toolDispatch.callId);p&&p.state!=="ok"&&this.#n(p,{state:"running",startedAt:t}),this.#i({kind:"tool",key:`tool:${r.toolDispatch.callId}`,label:r.toolDispatch.tool,start:t,seq:e.seq})}if(i?.type==="functionResponse"){let p=this.#t.get(i.callId);p&&this.#n(p,{state:i.status,response:i.response,endedAt:t,...r.toolRecovery?{recovery:r.toolRecovery.strategy}:{}}),this.#o(`tool:${i.callId}`,t,i.status)}if(r.modelRequest&&e.invocationId){let p=r.modelRequest.purpose,m=`model:${e.invocationId}`;this.#s.has(m)||this.#i({kind:"model",key:m,label:p==="compaction"?"compaction call":`model call (~${r.modelRequest.estimatedTokens} tokens)`,start:t,seq:e.seq}),this.#s.has(`attempt:${e.invocationId}`)||this.#i({kind:"attempt",key:`attempt:${e.invocationId}`,label:"attempt 1",start:t,seq:e.seq})}let f=o.modelAttempt;if(f){this.#o(`attempt:${f.invocationId}`,t,f.code);let p=Date.parse(f.retryAt);this.#i({kind:"attempt",key:`attempt:${f.invocationId}`,label:`attempt ${f.attempt+1}`,start:Number.isFinite(p)?Math.max(t,p):t,seq:e.seq}),f.code==="restart"&&this.marks.push({kind:"restart",at:t,label:"restart: call re-issued",seq:e.seq})}if(r.tokenUsage&&e.invocationId&&(this.#o(`attempt:${e.invocationId}`,t,"ok"),this.#o(`model:${e.invocationId}`,t,String(o.finishReason??"answered"))),o.checkpoint){let p=o.checkpoint;this.marks.push({kind:"compaction",at:t,label:`checkpoint through seq ${p.throughSeq??"?"}`,seq:e.seq})}let u=o.recoveryNotice;if(u&&(l({kind:"recovery",seq:e.seq,rerun:u.rerun,needsReview:u.needsReview}),this.marks.push({kind:"recovery",at:t,label:`recovery: ${u.rerun.length} re-run, ${u.needsReview.length} need review`,seq:e.seq})),o.runStarted?.cause==="recovery"&&this.marks.push({kind:"restart",at:t,label:"run taken over after a restart",seq:e.seq}),r.turnClose){l({kind:"turn",seq:e.seq,turnId:e.turnId,reason:r.turnClose.reason});for(let p of this.#s.values())p.end===void 0&&(p.end=t);this.#s.clear(),this.#e&&(this.#e.end=t,this.#e.outcome=r.turnClose.reason,this.#e=null)}return!0}toolOf(e){return this.#r.get(e)}#n(e,t){Object.assign(e,t),e.rev++}#i(e){this.spans.push(e),this.#s.set(e.key,e)}#o(e,t,i){let r=this.#s.get(e);r&&(r.end=Math.max(r.start,t),r.outcome=i,this.#s.delete(e))}};function V(n){return n<1e3?`${Math.round(n)} ms`:n<6e4?`${(n/1e3).toFixed(1)} s`:n<36e5?`${Math.floor(n/6e4)} min ${String(Math.round(n%6e4/1e3)).padStart(2,"0")} s`:`${Math.floor(n/36e5)} h ${Math.round(n%36e5/6e4)} min`}function Pe(n){return n<1024?`${n} B`:n<1024*1024?`${(n/1024).toFixed(1)} KiB`:`${(n/1024/1024).toFixed(1)} MiB`}function Ct(n){let e=n.actions??{};if(n.content)return n.content.type;for(let i of["permissionRequest","permissionDecision","toolDispatch","toolRecovery","modelRequest","turnClose","tokenUsage"])if(e[i])return i;let t=Object.keys(e.stateDelta??{});return t.length?`stateDelta.${t[0]}`:"event"}var Ke=[{kind:"turn",label:"Turns"},{kind:"model",label:"Model calls"},{kind:"attempt",label:"Attempts"},{kind:"tool",label:"Tool calls"},{kind:"approval",label:"Approvals"},{kind:"marks",label:"Events"}],Y=30,Ye=96,ne=22;function xs(n,e){let t=[1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,21600,43200,86400].map(i=>i*1e3);return t.find(i=>n/i<=e)??t.at(-1)}function Ss(n,e){let t=l=>n.filter(f=>f.kind===l),i=l=>{let f=l.map(p=>[p.start,p.end??e]).sort((p,m)=>p[0]-m[0]),u=0,h=null;for(let[p,m]of f)!h||p>h[1]?(h&&(u+=h[1]-h[0]),h=[p,m]):h[1]=Math.max(h[1],m);return h&&(u+=h[1]-h[0]),u},o=t("attempt").filter(l=>l.outcome&&l.outcome!=="ok").length;return[{kind:"turn",label:"Turns open",ms:i(t("turn")),count:t("turn").length},{kind:"model",label:"Model calls",ms:i(t("model")),count:t("model").length,...o?{extra:`${o} failed attempt${o===1?"":"s"} retried`}:{}},{kind:"tool",label:"Tool calls",ms:i(t("tool")),count:t("tool").length},{kind:"approval",label:"Waiting for approval",ms:i(t("approval")),count:t("approval").length}]}function qt(n,e,t,i){if(n.length===0&&e.length===0)return c`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;let r=Math.min(...n.map(g=>g.start),...e.map(g=>g.at)),o=Math.max(r+1e3,...n.map(g=>g.end??t),...e.map(g=>g.at)),l=Math.max(120,i-Ye-8),f=g=>Ye+(g-r)/(o-r)*l,u=ne+Ke.length*Y+4,h=xs(o-r,Math.max(2,Math.floor(l/90))),p=[];for(let g=0;g<=o-r;g+=h)p.push(g);let m=g=>ne+Ke.findIndex(v=>v.kind===g)*Y,b=g=>{let v=m(g.kind)+6,N=f(g.start),O=Math.max(2,f(g.end??t)-N),F=(g.end??t)-g.start,_=g.end===void 0?"open":g.outcome??"";return pe`<rect class="bar ${g.kind}" data-outcome=${_} x=${N.toFixed(1)} y=${v} width=${O.toFixed(1)} height=${Y-12} rx="2"><title>${g.label} — ${V(F)}${g.end===void 0?" so far":""}${g.outcome?` (${g.outcome})`:""} · seq ${g.seq}</title></rect>`},w=g=>{let v=f(g.at),N=m("marks")+Y/2;return pe`<g class="mark ${g.kind}"><path d="M${v.toFixed(1)} ${N-7} l6 7 l-6 7 l-6 -7 z"></path><title>${g.label} · seq ${g.seq}</title></g>`},k=Ss(n,t),R=o-r;return c`
    <figure class="timeline">
      <svg width=${i} height=${u} role="img" aria-label=${`Timeline over ${V(R)}: ${k.filter(g=>g.count).map(g=>`${g.label.toLowerCase()} ${V(g.ms)}`).join(", ")}`}>
        ${p.map(g=>pe`<line class="tick" x1=${f(r+g)} x2=${f(r+g)} y1=${ne-4} y2=${u}></line>
            <text class="tick-label" x=${f(r+g)+3} y=${ne-8}>+${V(g)}</text>`)}
        ${Ke.map((g,v)=>pe`<text class="lane-label" x="4" y=${ne+v*Y+Y/2+4}>${g.label}</text>
            <line class="lane" x1=${Ye} x2=${i} y1=${ne+(v+1)*Y} y2=${ne+(v+1)*Y}></line>`)}
        ${n.map(b)} ${e.map(w)}
      </svg>
      <figcaption>
        <strong>Where the time went</strong> (${V(R)} from first to last event)
        <ul class="totals">
          ${k.map(g=>c`<li data-kind=${g.kind}>
              <span class="swatch ${g.kind}"></span>${g.label}: <strong>${V(g.ms)}</strong>
              <span class="muted">(${g.count}${g.extra?`; ${g.extra}`:""})</span>
            </li>`)}
          <li><span class="swatch marks"></span>Compactions, recoveries, restarts, errors: ${e.length}</li>
        </ul>
      </figcaption>
    </figure>
  `}var Ts=5e3,Pt=400,ze=100,As=400,B=[{id:"transcript",label:"Transcript"},{id:"context",label:"Context"},{id:"log",label:"Log"},{id:"files",label:"Files"},{id:"timeline",label:"Timeline"}];function Mt(n){let{client:e,id:t,root:i,handleAuth:r,errorText:o}=n,l=new qe,f=new Map,u=new Map,h=null,p=null,m="connecting",b=null,w="",k=0,R=!1,g=!1,v=et(),N=!1,O=n.draft??"",F=null,_="",$=-1,U=null,W=null,D="",T="idle",q=null,A,P="",ye=-1,H=null;function et(){let s=location.hash.slice(1);return B.some(a=>a.id===s)?s:"transcript"}let tt=()=>{v=et(),He(),E()},ve=()=>E();window.addEventListener("hashchange",tt),window.addEventListener("online",ve),window.addEventListener("offline",ve);function E(){!k&&!R&&(k=requestAnimationFrame(Yt))}async function De(s,a){try{let d=s();if(d)return await d}catch(d){if(!(d instanceof M&&d.code==="disconnected"))throw d}return a()}async function Ht(s){let a=s.querySelector("textarea"),d=a.value;if(!d.trim())return;let x=n.randomKey();N=!0,w="",E();try{await De(()=>p?.send({type:"message",text:d,idempotencyKey:x}),()=>e.sendMessage(t,d,x)),a.value===d&&(a.value=""),O=""}catch(I){r(I)||(w=`Not sent: ${o(I)}`)}finally{N=!1,E(),a.focus()}}async function Wt(){try{re(await De(()=>p?.send({type:"stop"}),()=>e.stop(t)))}catch(s){r(s)||(w=`Stop failed: ${o(s)}`),E()}}async function Ft(s){let a=i.querySelector("#message"),d=a?.value.trim()??"";try{await e.resume(t,s.runId,{waitId:s.waitId,...d?{text:d}:{}}),a&&(a.value="")}catch(x){r(x)||(w=`Resume failed: ${o(x)}`),E()}}async function st(s,a,d){try{re(await De(()=>p?.send({type:"approval",requestId:s,decision:a,argsDigest:d}),()=>e.decideApproval(t,s,a,{argsDigest:d})))}catch(x){if(r(x))return;w=x instanceof M&&x.status===409?`Not decided: ${x.message}. Reload to review the call again.`:`Decision failed: ${o(x)}`,E()}}async function Ut(s){try{re(await e.dismissRecoveryNotice(t,s))}catch(a){if(r(a))return;a instanceof M&&a.status===409?re(await e.getSession(t)):w=`Dismiss failed: ${o(a)}`,E()}}async function jt(s){s.preventDefault();try{let a=URL.createObjectURL(new Blob([await e.exportNdjson(t)],{type:"application/x-ndjson"})),d=document.createElement("a");d.href=a,d.download=`highwater-${t.slice(0,12)}.ndjson`,d.click(),setTimeout(()=>URL.revokeObjectURL(a),1e4)}catch(a){r(a)||(w=`Export failed: ${o(a)}`),E()}}async function Vt(){T="running",E();try{T=await e.verify(t)}catch(s){T=`verify failed: ${o(s)}`}E()}function He(){v==="context"&&nt(),v==="log"&&!U&&be(null),v==="files"&&we()}async function nt(){let s=h?.highWater??0;if($!==s){$=s;try{F=await e.context(t),_=""}catch(a){r(a)||(_=o(a))}E()}}async function be(s){try{let a=s??Math.max(0,(h?.highWater??0)-ze);U=await e.events(t,a,ze),W=a,D=""}catch(a){r(a)||(D=o(a))}E()}async function we(s=!1){let a=h?.highWater??0;if(!(!s&&ye===a)){ye=a;try{let d=await e.files(t,s&&A?{after:A}:{});q=s&&q?[...q,...d.files]:d.files,A=d.next,P=""}catch(d){r(d)||(P=o(d))}E()}}async function Bt(s){H={path:s,content:null},E();try{H={path:s,content:await e.file(t,s)}}catch(a){r(a)||(H={path:s,content:null,error:o(a)})}E()}function re(s){h=s,document.title=`${s.title||"Untitled session"} — highwater`,E()}function Gt(s){if(s.type==="ready"||s.type==="session")s.type==="ready"&&f.clear(),re(s.session);else if(s.type==="event"){let a=s.event;l.add(a),a.invocationId&&(a.content?.type==="text"||a.content?.type==="thinking")&&f.delete(`${a.invocationId}:${a.content.type}`),a.actions?.turnClose&&(f.clear(),v==="context"&&nt(),v==="files"&&we()),a.content?.type==="functionResponse"&&v==="files"&&we(),E()}else s.type==="delta"?(Kt(s),E()):s.type==="error"&&(w=`${s.error.code}: ${s.error.message}`,E())}function Kt(s){let a=`${s.invocationId}:${s.kind}`,d=f.get(a),x=s.attempt??1;if(!(d&&x<d.attempt))if(s.replace||!d||x>d.attempt){for(let[I,S]of f)S.invocationId===s.invocationId&&S.attempt<x&&f.delete(I);f.set(a,{invocationId:s.invocationId,attempt:x,kind:s.kind,text:s.text})}else d.text+=s.text}function Yt(){if(k=0,R)return;let s=window.innerHeight+window.scrollY>=document.body.scrollHeight-120;te(Qt(),i),s&&v==="transcript"&&zt()&&window.scrollTo({top:document.body.scrollHeight})}let rt=0;function zt(){let s=l.lastSeq!==rt;return rt=l.lastSeq,s||f.size>0}function Qt(){if(b)return c`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${b}</p>`;let s=h,a=Math.max(s?.highWater??0,l.lastSeq);return c`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s?s.title||"Untitled session":"Session"}</h1>
        <div class="meta">
          ${s?Je(s.status):y} ${s?Xe(s):y}
          <span class="muted count" aria-live="off">${a} events</span>
          ${Es(s)}
          ${Zt()}
        </div>
      </header>
      ${es()}
      <p class="error" role="alert">${w}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${Xt}>
        ${B.map(d=>c`<button
            type="button"
            role="tab"
            id=${`tab-${d.id}`}
            aria-controls=${`panel-${d.id}`}
            aria-selected=${d.id===v?"true":"false"}
            tabindex=${d.id===v?"0":"-1"}
            @click=${()=>it(d.id)}
          >${d.label}</button>`)}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${v}`} aria-labelledby=${`tab-${v}`}>
        ${v==="transcript"?ss():y} ${v==="context"?os():y}
        ${v==="log"?ls():y} ${v==="files"?cs():y}
        ${v==="timeline"?qt(l.spans,l.marks,Date.now(),Jt()):y}
      </section>
      ${ts()}
    `}function Jt(){return Math.max(300,Math.min(i.clientWidth||800,1200))}function it(s){s!==v&&(history.replaceState(null,"",s==="transcript"?location.pathname:`#${s}`),v=s,He(),E())}function Xt(s){let a=B.findIndex(x=>x.id===v),d=s.key==="ArrowRight"?(a+1)%B.length:s.key==="ArrowLeft"?(a+B.length-1)%B.length:s.key==="Home"?0:s.key==="End"?B.length-1:-1;d<0||(s.preventDefault(),it(B[d].id),requestAnimationFrame(()=>i.querySelector(`#tab-${B[d].id}`)?.focus()))}function Zt(){let s=m!=="open"&&(!navigator.onLine||(p?.retries??0)>=3),a=m==="open"?"live":s?"offline":m==="reconnecting"?"reconnecting":"connecting";return c`<span class="conn" role="status" data-state=${a}>${a==="live"?"● live":a==="offline"?"○ offline — retrying":a==="reconnecting"?"◌ reconnecting…":"◌ connecting…"}</span>`}function es(){let s=h?.recoveryNotice;if(!s)return y;let a=d=>c`<li><code>${l.toolOf(d)??"call"}</code> ${d}</li>`;return c`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${s.atSeq}).</strong>
      ${s.rerun.length?c`<p>Re-run (safe to repeat):</p><ul>${s.rerun.map(a)}</ul>`:y}
      ${s.needsReview.length?c`<p>Needs review (the side effect may or may not have happened):</p><ul>${s.needsReview.map(a)}</ul>`:y}
      ${s.reissued?.length?c`<p>${s.reissued.length} model call(s) were issued again.</p>`:y}
      <button type="button" class="dismiss" @click=${()=>{Ut(s.atSeq)}}>Dismiss</button>
    </section>`}function ts(){let s=h,a=s?.wait??null;return c`<form
      class="composer"
      @submit=${d=>{d.preventDefault(),Ht(d.currentTarget)}}
    >
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${O}
        @input=${d=>{O=d.target.value}}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${d=>{d.key==="Enter"&&!d.shiftKey&&!d.isComposing&&(d.preventDefault(),d.currentTarget.form.requestSubmit())}}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${N}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${()=>{Wt()}}>Stop</button>
        ${a?c`<button type="button" @click=${()=>{Ft(a)}}>Resume</button>`:y}
      </div>
    </form>`}function ss(){let s=new Map(h?.pendingApprovals.map(S=>[S.requestId,S])),a=l.items,d=g||a.length<=Pt?a:a.slice(-Pt),x=a.length-d.length,I=[...f.values()];return c`
      ${x>0?c`<button type="button" class="link earlier" @click=${()=>{g=!0,E()}}>Show ${x} earlier items</button>`:y}
      ${a.length===0&&I.length===0?c`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`:y}
      <ol class="transcript" aria-label="Transcript" aria-busy=${I.length>0?"true":"false"}>
        ${he(d,S=>`${S.kind}:${S.seq}`,S=>ns(S,s))}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${I.map(S=>S.kind==="text"?c`<div class="item msg assistant streaming">
                <div class="who">Assistant${S.attempt>1?c` <span class="muted">(attempt ${S.attempt})</span>`:y}</div>
                <div class="text">${S.text}</div>
              </div>`:c`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${S.text}</pre></details>`)}
      </div>
    `}function ns(s,a){let d=`${s.kind}:${s.seq}`,x=s.kind==="tool"&&s.requestId?a.get(s.requestId):void 0,I=x!==void 0,S=u.get(d),L=s.kind==="tool"&&s.startedAt!==void 0&&s.endedAt===void 0;if(S&&S.rev===s.rev&&S.actionable===I&&!L)return S.tpl;let _e=rs(s,x);return u.set(d,{rev:s.rev,actionable:I,tpl:_e}),_e}function rs(s,a){switch(s.kind){case"message":return c`<li class="item msg ${s.role}" data-seq=${s.seq}>
          <div class="who">
            ${s.role==="user"?"You":"Assistant"}
            ${s.source&&!["http","ws"].includes(s.source)?c`<span class="muted"> via ${s.source}</span>`:y}
          </div>
          <div class="text">${s.text}</div>
        </li>`;case"thinking":return c`<li class="item thinking" data-seq=${s.seq}>
          <details><summary>Thinking (${s.text.length} chars)</summary><pre>${s.text}</pre></details>
        </li>`;case"tool":return is(s,a);case"error":return c`<li class="item error" role="note" data-seq=${s.seq}>
          <strong>Error (${s.code}): </strong>${s.message}
        </li>`;case"recovery":return c`<li class="item recovery" data-seq=${s.seq}>
          Recovered after a restart: ${s.rerun.length} call(s) re-run, ${s.needsReview.length} need review.
        </li>`;case"turn":return c`<li class="item turn" data-seq=${s.seq} data-reason=${s.reason}>turn ${s.reason}</li>`}}function is(s,a){let d=s.startedAt!==void 0?V((s.endedAt??Date.now())-s.startedAt):void 0,x=Qe(s.args),I=c`<code class="tool-name">${s.tool}</code>
      <span class="badge" data-state=${s.state}>${s.state.replace("_"," ")}</span>
      ${d?c`<span class="muted duration">${d}${s.endedAt===void 0?"…":""}</span>`:y}
      ${s.recovery?c`<span class="badge recovery">${s.recovery==="rerun"?"re-run after restart":"needs review"}</span>`:y}`;if(a){let S=new TextEncoder().encode(JSON.stringify(s.args)??"").length;return c`<li class="item tool approval-card" data-seq=${s.seq} data-state=${s.state}>
        <div class="tool-head">${I}</div>
        <div class="block">
          <span class="label">Arguments, ${Pe(S)} · digest <code>${a.argsDigest.slice(0,12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${s.tool}">${x}</pre>
        </div>
        <div class="approval" role="group" aria-label=${`Approval for ${s.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" @click=${()=>{st(a.requestId,"approve",a.argsDigest)}}>Approve</button>
          <button type="button" class="danger" @click=${()=>{st(a.requestId,"reject",a.argsDigest)}}>
            Reject
          </button>
        </div>
      </li>`}return c`<li class="item tool" data-seq=${s.seq} data-state=${s.state}>
      <details>
        <summary class="tool-head">${I}</summary>
        ${Lt("Arguments",x)} ${s.response!==void 0?Lt("Response",Qe(s.response)):y}
      </details>
    </li>`}function os(){if(_)return c`<p class="error" role="alert">${_}</p>`;if(!F)return c`<p class="muted">Loading the context…</p>`;let s=F,a=_e=>`${(100*_e/s.contextWindow).toFixed(1)}%`,d=JSON.stringify(s.messages),x=(d.match(/archive:\/\/[0-9a-f]{64}/g)??[]).length,I=h?.usage,S=I&&I.cachedInputTokens>0&&I.inputTokens>0?I.cachedInputTokens/I.inputTokens:null,L=s.estimatedTokens/s.threshold;return c`
      <div class="context">
        <p>
          <strong>${s.estimatedTokens.toLocaleString()}</strong> tokens estimated for the next model call, of a
          compaction threshold of <strong>${s.threshold.toLocaleString()}</strong>
          (${(L*100).toFixed(0)}%); window ${s.contextWindow.toLocaleString()}, ${s.maxOutputTokens.toLocaleString()}
          reserved for output.
        </p>
        <div
          class="meter"
          role="meter"
          aria-label="Context used"
          aria-valuemin="0"
          aria-valuemax=${s.threshold}
          aria-valuenow=${Math.min(s.estimatedTokens,s.threshold)}
          aria-valuetext=${`${s.estimatedTokens} of ${s.threshold} tokens before compaction`}
        >
          <div class="fill ${L>.9?"hot":""}" style="width:${a(Math.min(s.estimatedTokens,s.contextWindow))}"></div>
          <div class="threshold" style="left:${a(s.threshold)}" title="compaction threshold"></div>
          <div class="reserve" style="left:${a(s.contextWindow-s.maxOutputTokens)}" title="reserved for output"></div>
        </div>
        <div class="meter-legend muted">
          <span><span class="swatch fill"></span>estimate</span>
          <span><span class="swatch threshold"></span>threshold: compaction starts here</span>
          <span><span class="swatch reserve"></span>output reserve</span>
        </div>
        <dl class="facts">
          <dt>Checkpoint waterline</dt>
          <dd>
            ${s.checkpoint?c`events 1–${s.checkpoint.throughSeq} are summarised in checkpoint <code>${s.checkpoint.id}</code>;
                  raw from seq ${s.rawFromSeq}`:c`no checkpoint yet: the whole log from seq ${s.rawFromSeq} is sent raw`}
            ${as(s.checkpoint?.throughSeq??0,h?.highWater??l.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${x} tool result${x===1?"":"s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${S!==null?c`${(S*100).toFixed(1)}% of ${I.inputTokens.toLocaleString()} input tokens were cached`:c`<span class="muted">not reported by this provider</span>`}
          </dd>
          <dt>Messages</dt>
          <dd>${s.messages.length} messages, ${Pe(new TextEncoder().encode(d).length)}</dd>
        </dl>
        ${s.checkpoint?c`<details><summary>Checkpoint summary</summary><pre>${s.checkpoint.summary}</pre></details>`:y}
        <details><summary>Messages as the next call sends them</summary><pre>${Qe(s.messages)}</pre></details>
      </div>
    `}function as(s,a){let d=a>0?100*s/a:0;return c`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${d.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${a}</span>
    </div>`}function ls(){let s=T,a=s==="idle"?y:s==="running"?c`<span class="verify" role="status">verifying…</span>`:typeof s=="string"?c`<span class="verify bad" role="status">${s}</span>`:s.ok?c`<span class="verify ok" role="status">✓ verified ${s.highWater} events, head <code>${s.headDigest.slice(0,12)}…</code></span>`:c`<span class="verify bad" role="status">✗ ${s.problems.length} problem(s): ${s.problems.slice(0,3).join("; ")}</span>`,d=U,x=d?.events[0]?.seq??0,I=d?.events.at(-1)?.seq??0,S=Math.max(d?.highWater??0,h?.highWater??0);return c`
      <div class="toolbar">
        <button type="button" @click=${()=>{Vt()}}>Verify</button>
        <a href=${`/v1/sessions/${t}/export`} @click=${jt} download>Export</a>
        ${a}
      </div>
      ${D?c`<p class="error" role="alert">${D}</p>`:y}
      ${d?c`<div class="pager">
              <button type="button" ?disabled=${x<=1} @click=${()=>{be(Math.max(0,(W??0)-ze))}}>Older</button>
              <span class="muted">seq ${x}–${I} of ${S}</span>
              <button type="button" ?disabled=${I>=S} @click=${()=>{be(I)}}>Newer</button>
              <button type="button" class="link" @click=${()=>{be(null)}}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${he(d.events,L=>L.seq,L=>c`<tr data-seq=${L.seq}>
                      <td>${L.seq}</td>
                      <td><time datetime=${L.at}>${new Date(L.at).toLocaleTimeString()}</time></td>
                      <td>${L.author}</td>
                      <td><code>${Ct(L)}</code>${L.modelVisibility==="hidden"?c` <span class="muted">hidden</span>`:y}</td>
                      <td><code title=${L.digest}>${L.digest.slice(0,12)}</code></td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:c`<p class="muted">Loading the log…</p>`}
    `}function cs(){return P?c`<p class="error" role="alert">${P}</p>`:q?q.length===0?c`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`:c`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${q.map(s=>c`<li>
              <button type="button" class="link" aria-current=${H?.path===s.path?"true":"false"} @click=${()=>{Bt(s.path)}}>${s.path}</button>
              <span class="muted">${Pe(s.bytes)} · ${new Date(s.updatedAt).toLocaleString()}</span>
            </li>`)}
          ${A?c`<li><button type="button" class="link" @click=${()=>{we(!0)}}>More</button></li>`:y}
        </ul>
        ${H?c`<article class="file" aria-label=${H.path}>
              <h2><code>${H.path}</code></h2>
              ${H.error?c`<p class="error">${H.error}</p>`:H.content===null?c`<p class="muted">Loading…</p>`:c`<pre class="file-content">${H.content}</pre>`}
            </article>`:c`<p class="muted">Open a file to read it.</p>`}
      </div>
    `:c`<p class="muted">Loading the workspace…</p>`}E(),(async()=>{try{let s=await e.getSession(t);if(R)return;re(s),He(),p=e.connect(t,{after:Math.max(0,s.highWater-Ts),onFrame:Gt,onState:a=>{m=a,E()},onFatal:a=>{r(a)||(w=`Disconnected: ${o(a)}`),E()}})}catch(s){if(r(s))return;b=s instanceof M&&s.status===404?"No such session.":o(s),E()}})();let ds=setInterval(()=>{(v==="timeline"||m!=="open"||l.items.some(s=>s.kind==="tool"&&s.state==="running"))&&E()},1e3);return()=>{R=!0,p?.close(),p=null,clearInterval(ds),window.removeEventListener("hashchange",tt),window.removeEventListener("online",ve),window.removeEventListener("offline",ve),k&&cancelAnimationFrame(k),te(y,i)}}function Qe(n){return typeof n=="string"?n:JSON.stringify(n,null,2)??String(n)}function Lt(n,e){return e.length>As||e.split(`
`).length>12?c`<details class="block"><summary>${n} (${e.length} chars)</summary><pre>${e}</pre></details>`:c`<div class="block"><span class="label">${n}</span><pre>${e}</pre></div>`}function Je(n){return c`<span class="pill" data-status=${n}>${n.replace("_"," ")}</span>`}function Xe(n){return c`<span class="model"
    >${n.model.name}${n.model.provider==="demo"?c`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`:y}</span
  >`}function Es(n){let e=n?.placement;return!e||!e.locationHint&&!e.jurisdiction?y:c`<span class="muted placement">${[e.jurisdiction&&`jurisdiction ${e.jurisdiction}`,e.locationHint&&`near ${e.locationHint}`].filter(Boolean).join(" · ")}</span>`}var Me="highwater.token",Ze="highwater.draft.",Is=3e3,Rs=["wnam","enam","sam","weur","eeur","apac","oc","afr","me"],Cs=["write_file","edit_file","delete_file","http_fetch"],qs="Draft the release notes for version two",Ne=document.getElementById("app"),Ps=document.getElementById("top-actions"),fe=null,ae=()=>{};function Ot(n){history.pushState(null,"",n),$e()}document.addEventListener("click",n=>{let e=n.target.closest?.("a[data-nav]");!e||n.defaultPrevented||n.button!==0||n.metaKey||n.ctrlKey||n.shiftKey||(n.preventDefault(),Ot(e.getAttribute("href")))});window.addEventListener("popstate",$e);function Ls(){return Array.from(crypto.getRandomValues(new Uint8Array(16)),n=>n.toString(16).padStart(2,"0")).join("")}function Oe(n){return n instanceof M?`${n.code}: ${n.message}`:String(n)}function Le(n){return n instanceof M&&n.status===401?(ae(),ae=()=>{},sessionStorage.removeItem(Me),fe=null,Dt("That token was not accepted. Paste a valid API token."),!0):!1}function $e(){ae(),ae=()=>{};let n=sessionStorage.getItem(Me);if(fe=n?new ge({baseUrl:location.origin,token:n}):null,te(n?c`<button
          type="button"
          class="link"
          @click=${()=>{sessionStorage.removeItem(Me),$e()}}
        >Forget token</button>`:y,Ps),!fe)return Dt();let e=/^\/s\/([^/]+)\/?$/.exec(location.pathname);if(e){let t=decodeURIComponent(e[1]),i=sessionStorage.getItem(Ze+t)??void 0;sessionStorage.removeItem(Ze+t),ae=Mt({client:fe,id:t,root:Ne,handleAuth:Le,errorText:Oe,randomKey:Ls,...i?{draft:i}:{}})}else ae=Ns(fe)}function Dt(n){document.title="highwater";let e=n??"",t=()=>te(c`<form
        class="card"
        @submit=${async i=>{i.preventDefault();let o=i.currentTarget.querySelector("#token").value.trim();try{await new ge({baseUrl:location.origin,token:o}).listSessions({limit:1}),sessionStorage.setItem(Me,o),$e()}catch(l){e=l instanceof M&&l.status===401?"That token was not accepted.":Oe(l),t()}}}
      >
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${e}</p>
      </form>`,Ne);t(),Ne.querySelector("#token")?.focus()}var Nt=()=>({title:"",system:"",provider:"",name:"",contextWindow:"",approve:new Set,approvePaths:"",locationHint:"",jurisdiction:""});function Ms(n){let e=n.approvePaths.split(",").map(o=>o.trim()).filter(Boolean),t=new Set(["write_file","edit_file","delete_file"]),i=[...n.approve].map(o=>e.length&&t.has(o)?{tool:o,match:{path:e}}:{tool:o}),r={};return n.provider&&(r.provider=n.provider),n.name.trim()&&(r.name=n.name.trim()),n.contextWindow.trim()&&(r.contextWindow=Number(n.contextWindow)),{...n.title.trim()?{title:n.title.trim()}:{},...n.system.trim()?{system:n.system}:{},...Object.keys(r).length?{model:r}:{},...i.length?{approvals:i}:{},...n.locationHint?{locationHint:n.locationHint}:{},...n.jurisdiction?{jurisdiction:n.jurisdiction}:{}}}function Ns(n){document.title="Sessions — highwater";let e=Nt(),t=null,i="",r=!1,o=null,l,f=!1,u=0,h="",p,m=!1,b=()=>{m||te(N(),Ne)};async function w(){try{t=(await n.providers()).providers;let _=t.find($=>$.isDefault)??t[0];_&&!e.provider&&(e.provider=_.name)}catch(_){Le(_)||(t=[])}b()}async function k(_=!1){try{let $=await n.listSessions(_&&l?{before:l}:{});if(_)o=[...o??[],...$.sessions],l=$.next,f=!0;else{let U=new Set($.sessions.map(D=>D.id)),W=f?(o??[]).slice(u).filter(D=>!U.has(D.id)):[];o=[...$.sessions,...W],u=$.sessions.length,f||(l=$.next)}h=""}catch($){Le($)||(h=Oe($))}b()}function R(){e={...Nt(),provider:t?.find(_=>_.demo)?.name??e.provider,title:"Demo: release notes",approve:new Set(["write_file"]),approvePaths:"notes/task.md"},p=qs,b()}async function g(_){_.preventDefault(),r=!0,i="",b();try{let $=await n.createSession(Ms(e));p&&sessionStorage.setItem(Ze+$.id,p),Ot(`/s/${$.id}`)}catch($){Le($)||(i=Oe($)),r=!1,b()}}let v=_=>$=>{e={...e,[_]:$.target.value},b()},N=()=>{let _=t?.find($=>$.name===e.provider);return c`
      <form class="card create" @submit=${g}>
        <div class="form-head">
          <h2>Start a session</h2>
          <button type="button" class="secondary" @click=${R}>Demo preset</button>
        </div>
        <p class="muted">
          The demo preset uses the offline demo model and asks for your approval before it writes
          <code>notes/task.md</code>.
        </p>
        <label for="new-title">Title</label>
        <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${e.title} @input=${v("title")} />
        <label for="new-system">System prompt</label>
        <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${e.system} @input=${v("system")}></textarea>
        <fieldset>
          <legend>Model</legend>
          <div class="row">
            <span class="cell">
              <label for="new-provider">Provider</label>
              <select id="new-provider" .value=${e.provider} @change=${v("provider")}>
                ${(t??[]).map($=>c`<option value=${$.name} ?selected=${$.name===e.provider}>
                    ${$.name}${$.demo?" (offline demo)":""}${$.isDefault?" — default":""}
                  </option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-model">Name</label>
              <input id="new-model" placeholder=${_?.defaultModel??"the provider's default"} .value=${e.name} @input=${v("name")} />
            </span>
            <span class="cell">
              <label for="new-window">Context window</label>
              <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${e.contextWindow} @input=${v("contextWindow")} />
            </span>
          </div>
        </fieldset>
        <fieldset>
          <legend>Approval rules: ask me before</legend>
          <div class="row checks">
            ${Cs.map($=>c`<label class="check"><input
                  type="checkbox"
                  .checked=${e.approve.has($)}
                  @change=${U=>{let W=new Set(e.approve);U.target.checked?W.add($):W.delete($),e={...e,approve:W},b()}}
                /><code>${$}</code></label>`)}
          </div>
          <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
          <input id="new-paths" placeholder="every path" .value=${e.approvePaths} @input=${v("approvePaths")} />
        </fieldset>
        <fieldset>
          <legend>Placement</legend>
          <div class="row">
            <span class="cell">
              <label for="new-location">Location hint</label>
              <select id="new-location" .value=${e.locationHint} @change=${v("locationHint")}>
                <option value="">automatic</option>
                ${Rs.map($=>c`<option value=${$} ?selected=${$===e.locationHint}>${$}</option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-jurisdiction">Jurisdiction</label>
              <select id="new-jurisdiction" .value=${e.jurisdiction} @change=${v("jurisdiction")}>
                <option value="">none</option>
                <option value="eu" ?selected=${e.jurisdiction==="eu"}>eu</option>
                <option value="fedramp" ?selected=${e.jurisdiction==="fedramp"}>fedramp</option>
              </select>
            </span>
          </div>
        </fieldset>
        <button type="submit" ?disabled=${r}>New session</button>
        <p class="error" role="alert">${i}</p>
      </form>
      <h2>Sessions</h2>
      ${O()}
    `},O=()=>h&&!o?c`<p class="error" role="alert">${h}</p>`:o?o.length===0?c`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`:c`<ul class="sessions" aria-label="Your sessions">
      ${he(o,_=>_.id,_=>c`<li data-id=${_.id}>
          <a href=${`/s/${_.id}`} data-nav>${_.title||"Untitled session"}</a>
          ${Je(_.status)} ${_.openTurn?c`<span class="badge">turn open</span>`:y}
          ${_.pendingApprovals.length?c`<span class="badge approvals" data-state="waiting_approval">${_.pendingApprovals.length} approval${_.pendingApprovals.length===1?"":"s"} waiting</span>`:y}
          ${Xe(_)}
          <span class="muted">${_.highWater} events · updated ${new Date(_.updatedAt).toLocaleString()}</span>
        </li>`)}
      ${l?c`<li><button type="button" class="link" @click=${()=>{k(!0)}}>More</button></li>`:y}
    </ul>
    ${h?c`<p class="error" role="alert">${h}</p>`:y}`:c`<p class="muted">Loading…</p>`;b(),w(),k();let F=setInterval(()=>{document.visibilityState==="visible"&&k()},Is);return()=>{m=!0,clearInterval(F)}}$e();export{Ms as formOptions};
